"""Strict well-formedness check of a report's HTML, run by report_test.cpp.

Python's html.parser tokenises like a browser; on top of it every non-void
element must be closed in order, so a missing </td> or a stray </div> fails.
Exit status 0 when the file is well formed, 1 with the reason otherwise.
"""
import sys
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
        "source", "track", "wbr"}


class Checker(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []
        self.errors = []
        self.images = 0

    def handle_starttag(self, tag, attrs):
        if tag == "img":
            self.images += 1
            src = dict(attrs).get("src", "")
            if not src.startswith("data:image/"):
                self.errors.append(f"img at line {self.getpos()[0]} is not embedded: {src[:40]}")
        if tag not in VOID:
            self.stack.append((tag, self.getpos()[0]))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1][0] != tag:
            opened = self.stack[-1] if self.stack else ("nothing", 0)
            self.errors.append(f"</{tag}> at line {self.getpos()[0]} closes "
                               f"<{opened[0]}> from line {opened[1]}")
            return
        self.stack.pop()


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        text = f.read()
    if not text.startswith("<!DOCTYPE html>"):
        print("no <!DOCTYPE html>")
        return 1
    checker = Checker()
    checker.feed(text)
    checker.close()
    for tag, line in checker.stack:
        checker.errors.append(f"<{tag}> from line {line} is never closed")
    if checker.errors:
        print("\n".join(checker.errors))
        return 1
    print(f"ok images={checker.images}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
