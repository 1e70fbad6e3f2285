#!/usr/bin/env python3
"""Turns one of covkit's manuals (docs/*.md) into a man page, at build time,
so that the manual and `man covkit-...` are one text and never drift.

The manuals use a small part of Markdown, which this reads whole: headings
(# title, ## sections, ### subsections), paragraphs, fenced and indented code
blocks, bullet and numbered lists (nested by indentation), definition lists
(a term, then lines starting ": "), pipe tables, and inline `code`, **bold**,
*emphasis*/_emphasis_, links and images. Anything else is kept as text.

  md_to_man.py --name covkit-report --section 1 --version 0.1.0 IN.md OUT.1

The page's NAME comes from the manual's own NAME section, else from its
title ("# covkit sample — coverage of ..."). Every non-ASCII character is
written as a groff escape (\\[u2014]) and every hyphen as \\-, so that the
page renders the same in any locale and options copied from it work.
"""
import argparse
import re
import sys

INLINE = re.compile(
    r"(?P<code>`+)(?P<code_text>.+?)(?P=code)"      # `code`
    r"|!\[(?P<img>[^\]]*)\]\([^)]*\)"                  # ![alt](src)
    r"|\[(?P<link>[^\]]+)\]\((?P<url>[^)\s]+)\)"       # [text](url)
    r"|\*\*(?P<bold>.+?)\*\*"                          # **bold**
    r"|(?<![\w*])\*(?P<em>[^*\s](?:[^*]*[^*\s])?)\*(?![\w*])"   # *em*
    r"|(?<![\w])_(?P<em2>[^_\s](?:[^_]*[^_\s])?)_(?![\w])"      # _em_
    r"|\\(?P<escaped>[\\`*_{}\[\]()#+\-.!|<>])"       # \* and friends
)


def escape(text):
    """Plain text as groff input: backslashes, hyphens, non-ASCII."""
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\e")
        elif ch == "-":
            out.append("\\-")
        elif ord(ch) > 126 or (ord(ch) < 32 and ch != "\t"):
            out.append("\\[u%04X]" % ord(ch))
        else:
            out.append(ch)
    return "".join(out)


def inline(text):
    """Markdown's inline marks as font changes; the rest escaped."""
    out = []
    pos = 0
    for m in INLINE.finditer(text):
        out.append(escape(text[pos:m.start()]))
        if m.group("code") is not None:
            out.append("\\fB" + escape(m.group("code_text").strip()) + "\\fR")
        elif m.group("img") is not None:
            out.append("[" + escape(m.group("img") or "figure") + "]")
        elif m.group("link") is not None:
            label = inline(m.group("link"))
            url = m.group("url")
            out.append(label + (" <" + escape(url) + ">" if url.startswith(("http://", "https://")) else ""))
        elif m.group("bold") is not None:
            out.append("\\fB" + inline(m.group("bold")) + "\\fR")
        elif m.group("em") is not None:
            out.append("\\fI" + inline(m.group("em")) + "\\fR")
        elif m.group("em2") is not None:
            out.append("\\fI" + inline(m.group("em2")) + "\\fR")
        else:
            out.append(escape(m.group("escaped")))
        pos = m.end()
    out.append(escape(text[pos:]))
    return "".join(out)


def text_line(line):
    """One output line of running text: a leading dot or quote is not a request."""
    if line.startswith((".", "'")):
        return "\\&" + line
    return line


def table_cells(line):
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|") and not line.endswith("\\|"):
        line = line[:-1]
    cells, cell, i = [], "", 0
    in_code = False
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line) and line[i + 1] == "|":
            cell += "|"
            i += 2
            continue
        if ch == "`":
            in_code = not in_code
        if ch == "|" and not in_code:
            cells.append(cell.strip())
            cell = ""
        else:
            cell += ch
        i += 1
    cells.append(cell.strip())
    return cells


def is_rule_row(cells):
    return all(re.fullmatch(r":?-{2,}:?", c.replace(" ", "")) for c in cells if c) and any(cells)


class Converter:
    def __init__(self):
        self.out = []
        self.uses_tables = False

    def emit(self, line):
        self.out.append(line)

    def running_text(self, lines):
        """Lines of one paragraph as one input line: a code span or an
        emphasis may go on over a line end."""
        self.emit(text_line(inline(" ".join(l.strip() for l in lines))))

    def paragraph(self, lines):
        self.emit(".PP")
        self.running_text(lines)

    def code(self, lines, indent=True):
        self.emit(".sp")
        if indent:
            self.emit(".RS 4")
        self.emit(".nf")
        for line in lines:
            self.emit(text_line(escape(line)))
        self.emit(".fi")
        if indent:
            self.emit(".RE")

    def table(self, rows):
        self.uses_tables = True
        header = table_cells(rows[0])
        body = [table_cells(r) for r in rows[1:] if not is_rule_row(table_cells(r))]
        width = max(len(header), *(len(r) for r in body)) if body else len(header)
        self.emit(".PP")
        self.emit(".TS")
        self.emit("allbox;")
        # Short columns as wide as their text; the long ones share the rest.
        longest = [max(len(r[k]) if k < len(r) else 0 for r in [header] + body) for k in range(width)]
        self.emit(" ".join("lx" if w > 24 else "l" for w in longest) + ".")
        for row in [header] + body:
            row = row + [""] * (width - len(row))
            cells = []
            for i, cell in enumerate(row):
                # A long option in a narrow column may break after a hyphen
                # (\: marks where, without adding one).
                text = inline(cell).replace("\\-", "\\-\\:")
                if row is header:
                    text = "\\fB" + text + "\\fR" if text else text
                cells.append("T{\n.na\n" + text_line(text) + "\nT}")
            self.emit("\t".join(cells))
        self.emit(".TE")
        self.emit(".sp")

    def convert(self, lines):
        i = 0
        n = len(lines)
        list_depth = []  # indentation of each open list level

        def close_lists(to_indent=-1):
            while list_depth and list_depth[-1] > to_indent:
                list_depth.pop()
                if list_depth:
                    self.emit(".RE")

        while i < n:
            line = lines[i]
            stripped = line.strip()
            if not stripped:
                i += 1
                continue
            indent = len(line) - len(line.lstrip(" "))
            # Fenced code.
            if stripped.startswith("```"):
                block = []
                i += 1
                while i < n and not lines[i].strip().startswith("```"):
                    block.append(lines[i].rstrip("\n"))
                    i += 1
                i += 1
                self.code(block)
                continue
            # Headings.
            m = re.match(r"(#{2,6})\s+(.*)", stripped)
            if m and indent < 4:
                close_lists()
                title = m.group(2).strip()
                if len(m.group(1)) == 2:
                    self.emit(".SH " + quote_arg(inline(title.upper() if not has_code(title) else title)))
                else:
                    self.emit(".SS " + quote_arg(inline(title)))
                i += 1
                continue
            # Tables.
            if stripped.startswith("|") and i + 1 < n and is_rule_row(table_cells(lines[i + 1])):
                close_lists()
                rows = []
                while i < n and lines[i].strip().startswith("|"):
                    rows.append(lines[i])
                    i += 1
                self.table(rows)
                continue
            # List items.
            m = re.match(r"( *)([*+-]|\d+[.)])\s+(.*)", line)
            if m and not re.match(r" *[*-]{3,}\s*$", line):
                item_indent = len(m.group(1))
                if not list_depth or item_indent > list_depth[-1]:
                    if list_depth:
                        self.emit(".RS 2")
                    list_depth.append(item_indent)
                else:
                    close_lists(item_indent)
                    if not list_depth:
                        list_depth.append(item_indent)
                marker = m.group(2)
                bullet = "\\(bu" if marker in "*+-" else marker
                self.emit(".IP %s %d" % (bullet, 2 if bullet == "\\(bu" else 4))
                body = [m.group(3)]
                i += 1
                content = item_indent + len(marker) + 1
                while i < n and lines[i].strip():
                    nxt = lines[i]
                    if re.match(r" *([*+-]|\d+[.)])\s+", nxt) or nxt.strip().startswith(("```", "|")):
                        break
                    body.append(nxt.strip())
                    i += 1
                self.running_text(body)
                # A list item's further paragraphs or code, indented under it.
                while i < n:
                    j = i
                    while j < n and not lines[j].strip():
                        j += 1
                    if j >= n:
                        i = j
                        break
                    nxt = lines[j]
                    nxt_indent = len(nxt) - len(nxt.lstrip(" "))
                    if nxt_indent < content or re.match(r" *([*+-]|\d+[.)])\s+", nxt):
                        i = j if nxt_indent >= content else i
                        break
                    if nxt.strip().startswith("```"):
                        block = []
                        j += 1
                        while j < n and not lines[j].strip().startswith("```"):
                            block.append(lines[j][content:] if lines[j].startswith(" " * content) else lines[j].lstrip())
                            j += 1
                        self.code(block)
                        i = j + 1
                        continue
                    para = []
                    while j < n and lines[j].strip() and not re.match(r" *([*+-]|\d+[.)])\s+", lines[j]):
                        para.append(lines[j].strip())
                        j += 1
                    self.emit(".IP \"\" %d" % (2 if bullet == "\\(bu" else 4))
                    self.running_text(para)
                    i = j
                continue
            if list_depth and indent == 0:
                close_lists()
            # Indented code (outside lists).
            if indent >= 4 and not list_depth:
                block = []
                while i < n and (lines[i].startswith("    ") or not lines[i].strip()):
                    block.append(lines[i][4:].rstrip("\n"))
                    i += 1
                while block and not block[-1].strip():
                    block.pop()
                self.code(block)
                continue
            # Definition lists: TERM, then ": definition" lines.
            if i + 1 < n and lines[i + 1].startswith(": "):
                close_lists()
                self.emit(".TP")
                self.emit(text_line(inline(stripped)))
                i += 1
                para = []
                while i < n and (lines[i].startswith(": ") or (lines[i].startswith("  ") and lines[i].strip())
                                 or (not lines[i].strip() and i + 1 < n and lines[i + 1].startswith("  ")
                                     and para)):
                    text = lines[i]
                    if text.startswith(": "):
                        text = text[2:]
                    if not text.strip():
                        self.running_text(para)
                        self.emit(".IP")
                        para = []
                    else:
                        para.append(text)
                    i += 1
                if para:
                    self.running_text(para)
                continue
            # A paragraph.
            para = []
            while i < n and lines[i].strip():
                nxt = lines[i]
                if para and (nxt.strip().startswith(("```", "#")) or re.match(r"([*+-]|\d+[.)])\s+", nxt)):
                    break
                if para and i + 1 < n and lines[i + 1].startswith(": "):
                    break
                para.append(nxt)
                i += 1
            self.paragraph(para)
        close_lists()


def has_code(title):
    return "`" in title


def quote_arg(text):
    return '"' + text.replace('"', '\\(dq') + '"'


def split_title(lines):
    """The "# ..." title and the rest."""
    for k, line in enumerate(lines):
        if line.startswith("# "):
            return line[2:].strip(), lines[k + 1:]
        if line.strip():
            break
    return "", lines


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--name", required=True, help="the page's name: covkit-report")
    ap.add_argument("--section", required=True, help="1, 5, 7")
    ap.add_argument("--version", required=True)
    ap.add_argument("input")
    ap.add_argument("output")
    a = ap.parse_args()
    with open(a.input, encoding="utf-8") as f:
        lines = f.read().split("\n")
    title, rest = split_title(lines)
    c = Converter()
    has_name = any(re.match(r"##\s+NAME\s*$", l.strip(), re.I) for l in rest)
    if not has_name:
        summary = re.split(r"\s+[\u2014-]+\s+", title, maxsplit=1)
        what = summary[1] if len(summary) > 1 else title
        c.emit(".SH NAME")
        c.emit(escape(a.name) + " \\- " + inline(what))
    c.convert(rest)
    # NAME's line is "name \- summary" as whatis and apropos expect.
    body = c.out
    for k, line in enumerate(body):
        if line == '.SH "NAME"' or line == ".SH NAME":
            j = k + 1
            if j < len(body) and body[j] == ".PP":
                del body[j]
            if j < len(body):
                named, n = re.subn(r"^.*?\s*\\\[u2014\]\s*", escape(a.name) + " \\\\- ", body[j], count=1)
                # A NAME paragraph without "name —" (a topic's manual) is
                # the summary alone: the page's name goes before it.
                body[j] = named if n else escape(a.name) + " \\- " + body[j]
            break
    head = []
    if c.uses_tables:
        head.append("'\\\" t")
    head.append('.TH %s %s "" "covkit %s" "covkit manual"' % (quote_arg(escape(a.name.upper())), a.section,
                                                               escape(a.version)))
    head.append(".\\\" Generated from %s by scripts/md_to_man.py: edit the manual, not this page."
                % a.input.split("/docs/")[-1])
    # Technical text: no hyphenation (an option must not break at its
    # hyphens) and a ragged right margin rather than stretched blanks.
    head.append(".nh")
    head.append(".ad l")
    with open(a.output, "w", encoding="ascii") as f:
        f.write("\n".join(head + body) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
