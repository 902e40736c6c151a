"""MkDocs hooks for emc's documentation site (``hooks:`` in mkdocs.yml).

* The command-line reference is written at build time from :func:`emc.cli.build_parser`, the
  parser the ``emc`` command itself runs, so it cannot drift from the code: the page
  ``docs/reference/cli.md`` holds a marker line that is replaced by every command's usage,
  options and examples. No generated copy is checked in.
* Pages dropped into ``docs/methods/`` join the "Heuristics" section of the navigation
  without an edit to mkdocs.yml, so a new method family only has to add its page; any other
  page the nav does not name joins a last section, "More pages", until it is given a place.
* Docstrings still carry a few reStructuredText roles (``:class:`Puzzle```); they are shown as
  plain code, without the role's name.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parents[1]
CLI_MARKER = "<!-- emc-cli-reference -->"
HEURISTICS_MARKER = "<!-- emc-heuristics-api -->"
METHODS_DIR = "methods"
METHODS_SECTION = "Heuristics"
MORE_SECTION = "More pages"


# --------------------------------------------------------------------------- configuration


def on_config(config):
    # Document this checkout, not whatever emc the Python running mkdocs has installed.
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    _add_unlisted_pages(config)
    return config


def _nav_files(nav) -> set[str]:
    """Every page path a nav (a list of strings and one-key dicts) names."""
    found: set[str] = set()
    stack = [nav]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.add(item)
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return found


def _add_unlisted_pages(config) -> None:
    nav = config.get("nav")
    if not nav:
        return
    section = next((item[METHODS_SECTION] for item in nav
                    if isinstance(item, dict) and isinstance(item.get(METHODS_SECTION), list)), None)
    if section is None:
        raise PluginError(f"mkdocs.yml: the nav has no '{METHODS_SECTION}' section for docs/{METHODS_DIR}/ pages")
    listed = _nav_files(nav)
    docs = Path(config["docs_dir"])
    more: list[str] = []
    for page in sorted(docs.rglob("*.md")):
        rel = page.relative_to(docs).as_posix()
        if rel in listed:
            continue
        (section if rel.startswith(f"{METHODS_DIR}/") else more).append(rel)
    if more:
        nav.append({MORE_SECTION: more})


# --------------------------------------------------------------------------- CLI reference


#: page -> (marker line, function that writes what replaces it)
GENERATED = {
    "reference/cli.md": (CLI_MARKER, lambda: cli_reference()),
    "reference/api/heuristics.md": (HEURISTICS_MARKER, lambda: heuristics_reference()),
}


def on_page_markdown(markdown: str, page, config, files):
    if page.file.src_uri not in GENERATED:
        return markdown
    marker, write = GENERATED[page.file.src_uri]
    if marker not in markdown:
        raise PluginError(f"docs/{page.file.src_uri} lost its marker line {marker}")
    return markdown.replace(marker, write())


def cli_reference() -> str:
    """Markdown for every command of ``emc``, in the order ``emc --help`` lists them."""
    from emc.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    summaries = {a.dest: a.help for a in sub._choices_actions}
    out = ["## `emc`", "", "```text", _usage(parser), "```", "", _prose(parser.description or ""), ""]
    out += ["| command | what it does |", "|---|---|"]
    out += [f"| [`emc {name}`](#emc-{name}) | {_cell(summaries.get(name) or '')} |" for name in sub.choices]
    out += [""]
    out += _options(parser)
    for name, command in sub.choices.items():
        out += ["", f"## `emc {name}` {{ #emc-{name} }}", ""]
        if summaries.get(name):
            out += [f"*{_cell(summaries[name])}*", ""]
        out += ["```text", _usage(command), "```", ""]
        if command.description:
            out += [_prose(command.description), ""]
        out += _options(command)
        examples = _examples(command.epilog or "")
        if examples:
            out += ["**Examples**", "", "```bash", examples, "```"]
    return "\n".join(out) + "\n"


def _usage(parser: argparse.ArgumentParser) -> str:
    return parser.format_usage().strip()


def _options(parser: argparse.ArgumentParser) -> list[str]:
    formatter = parser._get_formatter()
    out: list[str] = []
    for group in parser._action_groups:
        actions = [a for a in group._group_actions
                   if a.help is not argparse.SUPPRESS and not isinstance(a, argparse._SubParsersAction)]
        if not actions:
            continue
        title = group.title or "options"
        out += [f"**{title[0].upper()}{title[1:]}**", "", "| argument | meaning |", "|---|---|"]
        for action in actions:
            invocation = formatter._format_action_invocation(action)
            meaning = formatter._expand_help(action) if action.help else ""
            if action.choices and not isinstance(action, argparse._SubParsersAction) and "{" not in invocation:
                meaning += f" (one of: {', '.join(map(str, action.choices))})"
            out.append(f"| `{invocation.replace('|', '&#124;')}` | {_cell(meaning)} |")
        out.append("")
    return out


def _examples(epilog: str) -> str:
    lines = epilog.strip("\n").splitlines()
    if lines and lines[0].strip().rstrip(":").lower() == "examples":
        lines = lines[1:]
    return "\n".join(line[2:] if line.startswith("  ") else line for line in lines).strip("\n")


_CODE = re.compile(r"(`[^`]*`)")


def _escape(text: str) -> str:
    """Markdown-safe text, keeping `code spans` as written."""
    parts = _CODE.split(text)
    for i in range(0, len(parts), 2):
        parts[i] = (parts[i].replace("\\", "\\\\").replace("<", "&lt;").replace(">", "&gt;")
                    .replace("*", "\\*").replace("_", "\\_").replace("[", "\\[").replace("]", "\\]"))
    return "".join(parts)


def _cell(text: str) -> str:
    """One table cell: one line, pipes escaped."""
    return _escape(" ".join(text.split())).replace("|", "&#124;")


def _prose(text: str) -> str:
    """A command's description as paragraphs; its "Exit status" line starts one of its own."""
    paragraphs = [p for p in re.split(r"\n\s*\n|\n(?=Exit )", text.strip()) if p.strip()]
    return "\n\n".join(_escape(" ".join(p.split())) for p in paragraphs)


# --------------------------------------------------------------------------- heuristics API


def heuristics_reference() -> str:
    """The names ``emc.heuristics`` exports, read from the package at build time.

    The package imports them lazily (PEP 562), which static analysis cannot follow, so they are
    imported here and shown with their signatures and docstrings as written.
    """
    import importlib
    import inspect

    package = importlib.import_module("emc.heuristics")
    names = list(getattr(package, "__all__", ()))
    if not names:
        raise PluginError("emc.heuristics has no __all__: the heuristics API page has nothing to show")
    rows, sections = [], []
    for name in names:
        obj = getattr(package, name)
        module = getattr(obj, "__module__", None) or package.__name__
        if inspect.isclass(obj):
            kind, head = "class", f"class {name}{_signature(obj)}"
        elif callable(obj):
            kind, head = "function", f"def {name}{_signature(obj)}"
        else:
            kind, head = "constant", f"{name} = {_value(obj)}"
        doc = inspect.getdoc(obj) if kind != "constant" else None
        summary = (doc or "").strip().split("\n\n")[0] if doc else f"`{_value(obj)}`"
        rows.append(f"| [`{name}`](#{name.lower()}) | {kind} | {_cell(summary)} |")
        sections += [f"### `{name}` {{ #{name.lower()} }}", "", f"Defined in `{module}`.", "",
                     "```python", head, "```", ""]
        if doc:
            sections += ["```text", doc, "```", ""]
    return "\n".join(["| name | kind | summary |", "|---|---|---|", *rows, "", *sections])


class _Annotation(str):
    """A postponed annotation (a string) shown as written, without quotes."""

    def __repr__(self) -> str:
        return str(self)


def _signature(obj) -> str:
    """``(a: int, b: Board = ...) -> R``, one parameter a line when long."""
    import inspect

    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return "(...)"
    plain = lambda a: _Annotation(a) if isinstance(a, str) else a  # noqa: E731
    params = [str(p.replace(annotation=plain(p.annotation))) for p in sig.parameters.values()]
    ret = sig.return_annotation
    ret = "" if inspect.isclass(obj) or ret is inspect.Signature.empty else f" -> {plain(ret)!r}"
    one_line = f"({', '.join(params)}){ret}"
    if len(one_line) <= 80:
        return one_line
    return "(\n" + "".join(f"    {p},\n" for p in params) + f"){ret}"


def _value(obj) -> str:
    """A constant as code: a mapping of classes by their names, anything else by its repr."""
    if isinstance(obj, dict):
        items = (f"{k!r}: {getattr(v, '__name__', repr(v))}" for k, v in obj.items())
        return "{" + ", ".join(items) + "}"
    return repr(obj)


# --------------------------------------------------------------------------- docstrings

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|data|attr|exc|obj|const):<code>(~?)([^<]*)</code>")


def on_page_content(html: str, page, config, files):
    def plain(m: re.Match) -> str:
        name = m.group(2).rsplit(".", 1)[-1] if m.group(1) else m.group(2)  # ~a.b.C shows as C
        return f"<code>{name}</code>"

    return _ROLE.sub(plain, html)
