#!/usr/bin/env python3
"""Checks docs/ARCHITECTURE.md against the tree it describes.

  links     the module table ("Layers and what each may use") against every
            target_link_libraries line of the modules' CMakeLists.txt, edge
            by edge and PUBLIC or PRIVATE, and each core module's layer
            against the layers of the core modules it links
  includes  every #include <tb/X/...> (and "plotting/", "ui/") of a module is
            of a module it links, directly or through PUBLIC links; core/
            includes no Qt; only core/engine/src includes LibTorch
  lists     the command list against `trainbench --help`, the docs row against
            docs/*.md, the tests/perf bullet against tests/perf's programs,
            and the core modules in both documents against core/
  selftest  a copy of the document with one edge added and one removed
            fails `links`, naming both

Exits 0 when everything agrees, 1 with one line per difference, 2 on bad use.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TABLE_MARK = "<!-- module-links: tests/architecture/check_architecture.py reads this table -->"

# What the link lines name, as the document names it. None: not a module edge
# (the C library's dl, an object library of the module itself).
EXTERNAL = {
    "nlohmann_json::nlohmann_json": "nlohmann_json",
    "yaml-cpp": "yaml-cpp",
    "protobuf::libprotobuf": "protobuf",
    "CURL::libcurl": "libcurl",
    "torch": "torch",
    "gloo": "gloo",
    "${TB_GLOO_LIBRARY}": "gloo",
    "DNNL::dnnl": "oneDNN",
    "${TB_SLEEF_LIBRARY}": "SLEEF",
    "CLI11::CLI11": "CLI11",
    "Qt6::Widgets": "Qt Widgets",
    "Qt6::Concurrent": "Qt Concurrent",
    "Qt6::Svg": "Qt Svg",
    "Qt6::PrintSupport": "Qt PrintSupport",
    "Qt6Keychain::Qt6Keychain": "Qt6Keychain",
    "QCustomPlotQt6::QCustomPlotQt6": "QCustomPlot",
    "${CMAKE_DL_LIBS}": None,
}
PROGRAMS = {"trainbench", "trainbench-studio", "trainbench-charts"}
# The folders of app/ and the module their sources belong to (app/cli's
# main.cpp is the CLI library's one-line shell).
APP_MODULES = {"app/cli": "cli", "app/studio": "trainbench-studio", "app/charts": "trainbench-charts"}
# Libraries that are part of a module: their links are the module's, at the
# visibility the module links them with.
PARTS = {"tb_logs_proto": "logs", "${target}": "engine"}


def module_dirs():
    dirs = [os.path.join("core", d) for d in sorted(os.listdir(os.path.join(ROOT, "core")))
            if os.path.isfile(os.path.join(ROOT, "core", d, "CMakeLists.txt"))]
    dirs += [os.path.join("app", d) for d in sorted(os.listdir(os.path.join(ROOT, "app")))]
    return dirs + ["plotting", "ui"]


def cmake_files():
    for folder in module_dirs():
        for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
            if "CMakeLists.txt" in files:
                yield os.path.join(dirpath, "CMakeLists.txt")


def module_of(target):
    if target in PROGRAMS:
        return target
    if target in PARTS:
        return PARTS[target]
    if target.startswith("tb::"):
        return target[4:]
    if target.startswith("tb_"):
        return target[3:]
    return None


def real_links(errors):
    """{module: {"PUBLIC": set, "PRIVATE": set}} from the CMakeLists.txt files."""
    links, parts = {}, {}
    for path in cmake_files():
        text = re.sub(r"#[^\n]*", "", open(path, encoding="utf-8").read())
        for call in re.finditer(r"target_link_libraries\s*\(([^)]*)\)", text):
            words = call.group(1).split()
            target, scope = words[0], "PRIVATE"
            for word in words[1:]:
                if word in ("PUBLIC", "PRIVATE", "INTERFACE"):
                    scope = "PUBLIC" if word == "INTERFACE" else word
                    continue
                used = module_of(word) if word not in EXTERNAL else EXTERNAL[word]
                if word not in EXTERNAL and used is None:
                    errors.append(f"{os.path.relpath(path, ROOT)}: {target} links {word}, which "
                                  "check_architecture.py does not know: add it to EXTERNAL")
                    continue
                if used is None:
                    continue
                if target in PARTS:
                    parts.setdefault(target, set()).add(used)
                    continue
                owner = module_of(target)
                if owner is None:
                    errors.append(f"{os.path.relpath(path, ROOT)}: unknown target {target}")
                    continue
                if word in PARTS:
                    continue
                links.setdefault(owner, {"PUBLIC": set(), "PRIVATE": set()})[scope].add(used)
    for part, used in parts.items():
        links[PARTS[part]]["PRIVATE"] |= used - {PARTS[part]}
    for edges in links.values():
        edges["PRIVATE"] -= edges["PUBLIC"]
    return links


def cell_names(cell):
    return {name.strip().strip("`") for name in cell.split(",") if name.strip()}


def documented_links(doc_path, errors):
    """The module table: {module: {"PUBLIC", "PRIVATE", "layer"}}."""
    lines = open(doc_path, encoding="utf-8").read().splitlines()
    if TABLE_MARK not in lines:
        errors.append(f"{doc_path}: the module table's marker is missing ({TABLE_MARK})")
        return {}
    table = {}
    for line in lines[lines.index(TABLE_MARK) + 3:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4:
            errors.append(f"{doc_path}: a module table row needs 4 cells: {line}")
            continue
        table[cells[1].strip("`")] = {"layer": cells[0], "PUBLIC": cell_names(cells[2]),
                                      "PRIVATE": cell_names(cells[3])}
    return table


def check_links(doc_path):
    errors = []
    real = real_links(errors)
    doc = documented_links(doc_path, errors)
    for module in sorted(set(real) | set(doc)):
        if module not in doc:
            errors.append(f"{module}: has link lines but no row in the module table")
            continue
        if module not in real:
            errors.append(f"{module}: has a row in the module table but links nothing")
            continue
        for scope in ("PUBLIC", "PRIVATE"):
            for used in sorted(real[module][scope] - doc[module][scope]):
                errors.append(f"{module} -> {used} ({scope}): in the CMakeLists.txt, not in the document")
            for used in sorted(doc[module][scope] - real[module][scope]):
                errors.append(f"{module} -> {used} ({scope}): in the document, not in the CMakeLists.txt")
    errors += check_layers(doc)
    return errors


def check_layers(doc):
    errors = []
    layer = {m: int(row["layer"].split()[1]) for m, row in doc.items()
             if re.fullmatch(r"core \d+", row["layer"])}
    for module, number in layer.items():
        for used in doc[module]["PUBLIC"] | doc[module]["PRIVATE"]:
            if used in layer and layer[used] >= number:
                errors.append(f"{module} (core {number}) links {used} (core {layer[used]}): "
                              "a core module links only lower layers")
    return errors


def reachable(links, module):
    """What `module`'s sources may include: itself, what it links, and what
    those reach through their PUBLIC links."""
    seen, todo = {module}, list(links.get(module, {}).get("PUBLIC", set())
                                | links.get(module, {}).get("PRIVATE", set()))
    while todo:
        used = todo.pop()
        if used not in seen:
            seen.add(used)
            todo += list(links.get(used, {}).get("PUBLIC", set()))
    return seen


INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)


def sources(folder):
    for dirpath, _, files in os.walk(os.path.join(ROOT, folder)):
        for name in files:
            if name.endswith((".cpp", ".hpp", ".h")):
                yield os.path.join(dirpath, name)


def check_includes():
    errors = []
    links = real_links(errors)
    for folder in module_dirs():
        module = APP_MODULES.get(folder, folder.split("/")[-1])
        allowed = reachable(links, module)
        for path in sources(folder):
            where = os.path.relpath(path, ROOT)
            for header in INCLUDE.findall(open(path, encoding="utf-8").read()):
                head = header.split("/")[0]
                if folder.startswith("core") and re.match(r"Q[A-Z]|Qt", head):
                    errors.append(f"{where}: includes <{header}>: core/ is Qt-free")
                if head in ("torch", "ATen", "c10") and not where.startswith("core/engine/src/"):
                    errors.append(f"{where}: includes <{header}>: only core/engine/src includes LibTorch")
                used = None
                if head == "tb" and "/" in header:
                    used = header.split("/")[1]
                elif head in ("plotting", "ui") and "/" in header:
                    used = head
                if used and used not in allowed:
                    errors.append(f"{where}: includes <{header}>, but {module} does not link {used}")
    return errors


def backticked_words(text):
    return {w.split()[0] for w in re.findall(r"`([^`]+)`", text)}


def section(text, title):
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else len(text)]


def bullet(text, opening):
    """The bullet of a section that starts with `opening`, up to the next one."""
    start = text.index(f"- {opening}")
    end = text.find("\n- ", start + 1)
    return text[start:end if end > 0 else len(text)]


def check_lists(doc_path, trainbench):
    errors = []
    doc = open(doc_path, encoding="utf-8").read()
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    helptext = subprocess.run([trainbench, "--help"], capture_output=True, text=True, timeout=60).stdout
    commands = set(re.findall(r"^  ([a-z]+) {2,}", helptext.split("Subcommands:")[1], re.M))
    contract = section(doc, "The CLI contract, in brief")
    listed = backticked_words(contract[contract.index("Commands:"):contract.index("Every command")])
    errors += [f"command {c}: in `trainbench --help`, not in the CLI contract's list"
               for c in sorted(commands - listed)]
    errors += [f"command {c}: in the CLI contract's list, not in `trainbench --help`"
               for c in sorted(listed - commands)]
    docs_row = next(line for line in doc.splitlines() if line.startswith("| `docs/` |"))
    for name in sorted(os.listdir(os.path.join(ROOT, "docs"))):
        if name.endswith(".md") and name != "ARCHITECTURE.md" and name not in docs_row:
            errors.append(f"docs/{name}: missing from the layout's docs/ row")
    perf_text = open(os.path.join(ROOT, "tests/perf/CMakeLists.txt"), encoding="utf-8").read()
    perf_bullet = backticked_words(bullet(section(doc, "Testing"), "`tests/perf/`"))
    for program in sorted(set(re.findall(r"add_executable\((\w+)", perf_text)) - perf_bullet):
        errors.append(f"tests/perf program {program}: missing from the Testing section's tests/perf bullet")
    core = {d for d in os.listdir(os.path.join(ROOT, "core"))
            if os.path.isfile(os.path.join(ROOT, "core", d, "CMakeLists.txt"))}
    readme_layout = backticked_words(section(readme, "Layout"))
    errors += [f"core/{m}: missing from the README's layout" for m in sorted(core - readme_layout)]
    module_rows = set(re.findall(r"^\| `core/(\w+)` \|", doc, re.M))
    errors += [f"core/{m}: missing from the core modules table" for m in sorted(core - module_rows)]
    return errors


def selftest(doc_path):
    """The links check must fail on a wrong edge: add one, drop one."""
    text = open(doc_path, encoding="utf-8").read()
    rows = text.split(TABLE_MARK)[1]
    wrong = re.sub(r"^(\| core 0 \| `common` \| )nlohmann_json", r"\1nlohmann_json, ui",
                   rows, count=1, flags=re.M)
    wrong = re.sub(r"^(\| core 2 \| `compat` \| )catalog", r"\1", wrong, count=1, flags=re.M)
    if wrong == rows:
        return ["selftest: the rows it edits (common, compat) are not in the module table"]
    with tempfile.NamedTemporaryFile("w", suffix=".md", delete=False) as copy:
        copy.write(text.split(TABLE_MARK)[0] + TABLE_MARK + wrong)
    try:
        found = check_links(copy.name)
    finally:
        os.unlink(copy.name)
    expected = ["common -> ui (PUBLIC): in the document, not in the CMakeLists.txt",
                "compat -> catalog (PUBLIC): in the CMakeLists.txt, not in the document"]
    return [f"selftest: the wrong document did not report '{e}' (it reported: {found})"
            for e in expected if not any(line.startswith(e) for line in found)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("check", choices=["links", "includes", "lists", "selftest"])
    parser.add_argument("--doc", default=os.path.join(ROOT, "docs", "ARCHITECTURE.md"))
    parser.add_argument("--trainbench", help="the built trainbench (for lists)")
    args = parser.parse_args()
    if args.check == "lists" and not args.trainbench:
        parser.error("lists needs --trainbench")
    errors = {"links": lambda: check_links(args.doc),
              "includes": check_includes,
              "lists": lambda: check_lists(args.doc, args.trainbench),
              "selftest": lambda: selftest(args.doc)}[args.check]()
    for line in errors:
        print(line)
    agreed = "a wrong edge fails the links check" if args.check == "selftest" else "the document agrees"
    print(f"{args.check}: {len(errors)} difference(s)" if errors else f"{args.check}: {agreed}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
