"""Program extraction from LLM replies, with acorn in the real Node runtime."""

from __future__ import annotations

import pytest

from blockpact.agents.code_extraction import CodeExtractionError, code_blocks, extract_program, reply_sections

REPLY = """Explain: The last round had no pickaxe.
Plan:
1) Take the stone pickaxe.
2) Mine iron.
Code:
```javascript
function chestAt() {
  return new Vec3(6, 64, 7);
}
```
Some words between the blocks.
```js
async function mineIron(bot) {
  await getItemFromChest(bot, chestAt(), { stone_pickaxe: 1 });
  await mineBlock(bot, "iron_ore", 3);
}
await mineIron(bot);
```
"""


def test_blocks_are_joined_and_the_entry_found() -> None:
    program = extract_program(REPLY)
    assert program.function_name == "mineIron"
    assert program.helpers == ("chestAt",)
    assert program.dropped == ("await mineIron(bot);",)
    assert program.code.startswith("function chestAt()") and program.code.rstrip().endswith("}")
    assert "await mineIron(bot);" not in program.code


def test_sections() -> None:
    sections = reply_sections(REPLY)
    assert sections["explain"] == "The last round had no pickaxe."
    assert sections["plan"] == "1) Take the stone pickaxe.\n2) Mine iron."
    assert sections["code"].startswith("```javascript")


def test_untagged_blocks_count_and_other_languages_do_not() -> None:
    assert code_blocks("```\nlet a = 1;\n```\n```python\nx = 1\n```") == ["let a = 1;\n"]


@pytest.mark.parametrize(
    ("reply", "kind", "message"),
    [
        ("I will mine iron now.", "no_code", "the reply has no ```javascript code block"),
        ("```javascript\nasync function f(bot) {\n  mineBlock(bot, 'x'\n}\n```", "syntax", "Unexpected token at line 3, column 0 of the code"),
        ("```javascript\nfunction f(bot) { return 1; }\n```", "no_entry", "no async function taking `bot`"),
        # the action prompt's skeleton echoed back (SmolLM2-135M did): it ran as a success that did nothing
        ("```javascript\nasync function mainFunctionName(bot) {\n  // ...\n}\n```", "empty",
         "the function mainFunctionName has an empty body"),
    ],
)
def test_unusable_replies_say_why(reply: str, kind: str, message: str) -> None:
    with pytest.raises(CodeExtractionError) as caught:
        extract_program(reply)
    assert caught.value.kind == kind
    assert message in str(caught.value)


PROGRAM = "async function mineIron(bot) {\n  await mineBlock(bot, 'iron_ore', 1);\n}"


@pytest.mark.parametrize(
    "reply",
    [
        f"Code:\n```JavaScript (ES2020)\n{PROGRAM}\n```",  # another tag
        f"Explain: fine.\nCode:\n```javascript\n{PROGRAM}\n",  # never closed (cut at the length limit)
        f"Here is my program:\n\n{PROGRAM}\n\nThis mines one iron ore.",  # bare code in prose
        f"Code:\n{PROGRAM}\n```",  # a stray closing fence
    ],
)
def test_loosely_formatted_programs_are_found(reply: str) -> None:
    program = extract_program(reply)
    assert program.function_name == "mineIron" and "mineBlock(bot, 'iron_ore', 1)" in program.code


def test_a_loose_program_that_does_not_parse_says_where() -> None:
    with pytest.raises(CodeExtractionError) as caught:
        extract_program("Code:\n```javascript\nasync function f(bot) {\n  await mineBlock(bot, 'x'\n")
    assert caught.value.kind == "syntax"
