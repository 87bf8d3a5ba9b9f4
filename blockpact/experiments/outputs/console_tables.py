"""Tables on the console that stay readable wherever they go: on a terminal a rich table whose cells fold
(nothing cut to "orcha…"); into a pipe or file plain aligned columns, one line per row, as wide as the cells need
(a rich table piped at 80 columns wrapped each row into five lines of cell fragments)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.table import Table


def print_table(console: Console, headers: Sequence[str], rows: Sequence[Sequence[str]], title: str = "",
                caption: str = "", sections: Sequence[int] = ()) -> None:
    """`sections`: row indices after which a rule is drawn (a total row set apart)."""
    if console.is_terminal:
        table = Table(title=title or None, caption=caption or None)
        for header in headers:
            table.add_column(header, overflow="fold")
        for i, row in enumerate(rows):
            table.add_row(*row, end_section=i in sections)
        console.print(table)
        return
    widths = [max([len(h), *(len(r[i]) for r in rows)]) for i, h in enumerate(headers)]
    lines = [title] if title else []
    lines.append("  ".join(h.ljust(w) for h, w in zip(headers, widths)).rstrip())
    lines.append("  ".join("-" * w for w in widths))
    for i, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip())
        if i in sections:
            lines.append("  ".join("-" * w for w in widths))
    if caption:
        lines.append(caption)
    console.print("\n".join(lines), markup=False, highlight=False, soft_wrap=True)
