"""Where LLM settings come from and how mistakes in them are reported."""

from __future__ import annotations

from pathlib import Path

import pytest

from blockpact.llm import LLMConfigError, llm_configured, load_llm_settings
from blockpact.llm.settings import OPENAI_API_URL, RetryPolicy


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "mine.toml"
    path.write_text(text)
    return path


def test_package_defaults_match_the_contracting_paper() -> None:
    settings = load_llm_settings(environ={})
    temperatures = {role: settings.role(role).temperature for role in ("action", "critic", "judge", "negotiator")}
    assert temperatures == {"action": 0.1, "critic": 0.1, "judge": 0.1, "negotiator": 0.7}
    assert settings.role("a_role_nobody_configured") == settings.role("default")


def test_nothing_configured_means_scripted_agents() -> None:
    settings = load_llm_settings(environ={})
    assert not llm_configured(settings)
    assert "no LLM endpoint configured" in (settings.problem() or "")


def test_endpoint_without_model_is_not_configured() -> None:
    settings = load_llm_settings(environ={"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"})
    assert not settings.configured and "no LLM model" in (settings.problem() or "")


def test_environment_variables_configure_a_local_server() -> None:
    env = {"OPENAI_BASE_URL": "http://127.0.0.1:11434/v1/", "OPENAI_MODEL": "llama3"}
    settings = load_llm_settings(environ=env)
    assert settings.configured and not settings.api_key
    assert (settings.base_url, settings.role("judge").model) == ("http://127.0.0.1:11434/v1", "llama3")


def test_a_key_alone_means_the_openai_api() -> None:
    settings = load_llm_settings(environ={"OPENAI_API_KEY": "sk-abc", "OPENAI_MODEL": "gpt-4o"})
    assert settings.base_url == OPENAI_API_URL and settings.configured


def test_precedence_file_then_environment_then_flags(tmp_path: Path) -> None:
    config = write(tmp_path, '[endpoint]\nbase_url = "http://file/v1"\nmodel = "file-model"\ntimeout_seconds = 9\n')
    assert load_llm_settings(config, environ={}).base_url == "http://file/v1"
    env = {"OPENAI_BASE_URL": "http://env/v1", "OPENAI_MODEL": "env-model", "BLOCKPACT_LLM_CONFIG": str(config)}
    from_env = load_llm_settings(environ=env)
    assert (from_env.base_url, from_env.model, from_env.timeout_s) == ("http://env/v1", "env-model", 9.0)
    flags = load_llm_settings(base_url="http://flag/v1", model="flag-model", environ=env)
    assert (flags.base_url, flags.model) == ("http://flag/v1", "flag-model")


def test_key_variable_can_be_renamed(tmp_path: Path) -> None:
    config = write(tmp_path, '[endpoint]\napi_key_env = "VLLM_KEY"\n')
    settings = load_llm_settings(config, base_url="http://x/v1", environ={"VLLM_KEY": "k-1", "OPENAI_API_KEY": "k-2"})
    assert settings.api_key.reveal() == "k-1"
    assert load_llm_settings(api_key_env="OTHER", environ={"OTHER": "k-3"}).api_key.reveal() == "k-3"


def test_secret_never_shows_itself() -> None:
    settings = load_llm_settings(environ={"OPENAI_API_KEY": "sk-very-secret"})
    assert "sk-very-secret" not in repr(settings) and "sk-very-secret" not in f"{settings.api_key}"


def test_roles_and_prices_can_be_added(tmp_path: Path) -> None:
    config = write(
        tmp_path,
        '[roles.scout]\nmodel = "fast"\ntemperature = 1\nstop = ["END"]\n'
        '[prices."my-model"]\nprompt_per_million = 1\ncompletion_per_million = 2\n',
    )
    settings = load_llm_settings(config, environ={})
    assert (settings.role("scout").model, settings.role("scout").temperature) == ("fast", 1.0)
    assert settings.role("scout").params == {"stop": ["END"]}
    assert settings.prices["my-model"].cost(1_000_000, 1_000_000) == 3.0


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[endpoint]\nmodle = 'x'\n", "2: endpoint.modle: unknown key"),
        ("[retry]\nmax_retries = 'three'\n", "2: retry.max_retries: expected an integer, got 'three'"),
        ("[roles.judge]\ntemprature = 0.1\n", "2: roles.judge.temprature: unknown key"),
        ("[roles.judge]\ntemperature = 3.0\n", "2: roles.judge.temperature: expected at most 2, got 3.0"),
        ("[prices.m]\nprompt = 1\n", "2: prices.m.prompt: unknown key"),
        ('[prices."gpt-4.1"]\nprompt = 1\n', "2: prices.gpt-4.1.prompt: unknown key"),  # a dotted name, in your file
        ("[retry]\nmax_retries = -1\n", "2: retry.max_retries: expected at least 0, got -1"),
        ("[endpoint\n", " not valid TOML"),
    ],
)
def test_mistakes_name_the_file_line_and_key(tmp_path: Path, text: str, message: str) -> None:
    config = write(tmp_path, text)
    with pytest.raises(LLMConfigError) as exc:
        load_llm_settings(config, environ={})
    assert f"{config}:{message}" in str(exc.value)


def test_missing_config_file_is_a_user_error(tmp_path: Path) -> None:
    with pytest.raises(LLMConfigError, match="not found"):
        load_llm_settings(tmp_path / "nope.toml", environ={})


def test_backoff_doubles_up_to_its_cap_and_retry_after_wins() -> None:
    policy = RetryPolicy(max_retries=5, backoff_initial_s=1.0, backoff_max_s=5.0, retry_after_max_s=60.0)
    assert [policy.delay(n, None) for n in range(5)] == [1.0, 2.0, 4.0, 5.0, 5.0]
    assert policy.delay(0, 12.0) == 12.0 and policy.delay(0, 600.0) == 60.0


def test_cache_directory(tmp_path: Path) -> None:
    assert load_llm_settings(environ={"XDG_CACHE_HOME": "/xdg"}).cache_dir == Path("/xdg/blockpact/llm")
    assert load_llm_settings(cache_dir=tmp_path, environ={}).cache_dir == tmp_path
    assert load_llm_settings(cache_dir=tmp_path, no_cache=True, environ={}).cache_dir is None
    disabled = write(tmp_path, "[cache]\nenabled = false\n")
    assert load_llm_settings(disabled, environ={}).cache_dir is None
