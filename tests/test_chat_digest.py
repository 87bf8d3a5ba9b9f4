"""A chat log flooded by one repeated line (a polling loop's feedback) still shows the episode's messages."""

from blockpact.agents.action_context import ActionContext
from blockpact.agents.action_prompts import action_messages, critic_messages
from blockpact.agents.chat_digest import condensed_chat
from blockpact.bridge.protocols import ProgramResult
from blockpact.worlds.world_files import load_world


def test_a_repeated_line_is_shown_once_with_its_count_and_last_time() -> None:
    lines = ["[10.0 s] Ann: I take 12 per round", "[12.5 s] Ann (feedback): No pumpkin nearby",
             "[13.0 s] Ben: me too", "[17.5 s] Ann (feedback): No pumpkin nearby",
             "[22.5 s] Ann (feedback): No pumpkin nearby", "[30.0 s] Ann: done"]
    assert condensed_chat(lines) == [
        "[10.0 s] Ann: I take 12 per round",
        "[12.5 s] Ann (feedback): No pumpkin nearby (2 more times, the last at 22.5 s)",
        "[13.0 s] Ben: me too",
        "[30.0 s] Ann: done",
    ]


def test_the_same_words_from_another_speaker_are_another_line_and_untimed_lines_compare_whole() -> None:
    assert condensed_chat(["[1 s] Ann: ok", "[2 s] Ben: ok", "feedback: none", "feedback: none"]) == [
        "[1 s] Ann: ok", "[2 s] Ben: ok", "feedback: none (1 more time)"]


def test_the_action_prompt_keeps_the_episodes_messages_past_a_flood_of_feedback() -> None:
    spec = load_world("commons")
    flood = [f"[{600 + i}.5 s] Blake (feedback): No pumpkin nearby, please explore first" for i in range(60)]
    log = ["[5.0 s] Drew: I take what I can", *flood, "[719.5 s] Blake: done"]
    ctx = ActionContext(player="Alex", world=spec, task="Harvest pumpkins.", observation={}, chat_log=log)
    [_, user] = action_messages(ctx, "primitives", (), chat_lines=30)
    assert "[5.0 s] Drew: I take what I can" in user["content"]
    assert "(59 more times, the last at 659.5 s)" in user["content"]
    assert user["content"].count("No pumpkin nearby") == 1


def test_the_critic_sees_a_repeated_feedback_line_once() -> None:
    result = ProgramResult("Alex", True, None, None, None, chat=["No pumpkin nearby"] * 40 + ["done"],
                           chat_sources=["primitive"] * 40 + ["program"])
    [_, user] = critic_messages("Harvest pumpkins.", result)
    assert "feedback: No pumpkin nearby (39 more times)" in user["content"]
    assert "said: done" in user["content"]
