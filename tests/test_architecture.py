"""The package's house, read from the source (every import statement, those inside functions too):

1. no import runs in a circle (the registry depends on the loaders, never the reverse);
2. layers point down: a module imports from its own layer and the layers below, never above
   (:data:`LAYERS`, bottom up: datasets, features, queries, compiled → metrics → algorithms, results →
   reports → protocols, plotting → app → launch → experiments, run.py, benchmarks);
3. a private name (a module or an attribute with a leading underscore) is imported only inside its
   own subpackage: another subpackage (or a script) imports a public name of a public module;
4. no re-export trick: ``# noqa: F401`` (a name imported only to be imported from here) only in an
   ``__init__.py``, a package's public face; a module of the package imports what it uses from the
   module that defines it, never through a package's ``__init__.py`` (scripts and users may);
5. no module over 300 lines.
"""
import ast
import graphlib
import re
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "src" / "ordrank"

# The layers, bottom up. A unit is a subpackage of ordrank, a top-level module of ordrank (each
# placed by what it imports and who imports it) or the scripts; a unit imports only from the units
# of its own layer and of the layers below it.
LAYERS = [
    {"datasets", "features", "queries",
     "compiled",          # numba's njit, cached where it can be: used by datasets and algorithms
     "ordrank"},          # ordrank/__init__.py: the version only; imports nothing
    {"metrics"},
    {"algorithms", "results",
     "progress"},         # progress bars and step timings: writes with results' atomic_path; used
                          # by the protocols and the scripts
    {"reports"},
    {"protocols", "plotting"},
    {"app",
     "config_columns",    # the run's Hydra configuration -> a table's config.* columns: used by app
     "settings",          # checks the run's top-level Hydra settings: used by app
     "resume",            # resuming a run or a sweep (a Hydra callback): used by app and run.py
     "data"},             # python -m ordrank.data, a command like app: imports datasets, imported by none
    {"launch"},           # a sweep's jobs on an engine (local, Ray, SLURM), added to its tables: runs app's jobs
    {"experiments", "benchmarks",
     "run"},              # run.py, the Hydra entry point
]
LAYER = {unit: level for level, units in enumerate(LAYERS) for unit in units}
ALLOWED = {unit: set().union(*LAYERS[: level + 1]) for unit, level in LAYER.items()}
NOQA_F401 = re.compile(r"#\s*noqa(?!:)|#\s*noqa:[^#]*\bF401\b")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in PACKAGE.rglob("*.py")}


def sources() -> list[tuple[Path, str, str]]:
    """(path, module name, unit) of every module of ordrank and every script."""
    found = [(path, name, name.split(".")[1] if "." in name else name) for name, path in MODULES.items()]
    found += [(path, f"{folder}.{path.stem}", folder) for folder in ("experiments", "benchmarks")
              for path in (REPO / folder).rglob("*.py")]
    return found + [(REPO / "run.py", "run", "run")]


def unit_of(module: str) -> str:
    """``ordrank.algorithms.batch.svor`` → ``algorithms``, ``ordrank.app`` → ``app``."""
    return module.split(".")[1] if "." in module else module


def private(*parts: str) -> bool:
    return any(p.startswith("_") and not (p.startswith("__") and p.endswith("__")) for p in parts)


def dotted(node) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and (base := dotted(node.value)):
        return f"{base}.{node.attr}"
    return None


def imports(path: Path, name: str):
    """(line, module, attribute or None) of each import of ordrank in the file, at any depth:
    ``import``, ``from ... import`` (relative ones resolved), ``import_module("ordrank...")`` and a
    private attribute read on an imported ordrank module (``registry._unzip``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    aliases = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "ordrank":
                    aliases[alias.asname or "ordrank"] = alias.name if alias.asname else "ordrank"
                    yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            if base.split(".")[0] != "ordrank":
                continue
            for alias in node.names:
                full = f"{base}.{alias.name}"
                if full in MODULES:
                    aliases[alias.asname or alias.name] = full
                yield (node.lineno, full, None) if full in MODULES else (node.lineno, base, alias.name)
        elif isinstance(node, ast.Call) and (dotted(node.func) or "").endswith("import_module") and node.args:
            first = node.args[0]
            text = first.value if isinstance(first, ast.Constant) else (
                first.values[0].value if isinstance(first, ast.JoinedStr) and first.values
                and isinstance(first.values[0], ast.Constant) else "")
            if isinstance(text, str) and text.split(".")[0] == "ordrank":
                yield node.lineno, text.rstrip(".") if isinstance(first, ast.Constant) \
                    else text.rpartition(".")[0], None
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr) and (chain := dotted(node.value)):
            head, _, rest = chain.partition(".")
            module = ".".join(filter(None, [aliases.get(head), rest])) if head in aliases else ""
            if module in MODULES:
                yield node.lineno, module, node.attr


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(REPO)}:{line}"


def import_graph() -> dict[str, set[str]]:
    """{module: the ordrank modules it imports}, every import statement (lazy ones included)."""
    graph = {}
    for name, path in MODULES.items():
        graph[name] = {module for _, module, _ in imports(path, name) if module in MODULES and module != name}
    return graph


def test_no_import_runs_in_a_circle():
    graph = import_graph()
    assert "ordrank.datasets.registry" in graph and graph["ordrank.datasets.registry"]
    try:
        list(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        raise AssertionError(f"an import circle: {' -> '.join(error.args[1])}") from None


def test_the_registry_depends_on_the_loaders_never_the_reverse():
    graph = import_graph()
    loaders = {"ordrank.datasets.partitions", "ordrank.datasets.partition_folder", "ordrank.datasets.letor",
               "ordrank.datasets.ratings", "ordrank.datasets.orca_archives"}
    for loader in loaders:
        assert not graph[loader] & {"ordrank.datasets.registry", "ordrank.datasets.fetch",
                                    "ordrank.datasets.install"}, loader


def test_every_unit_has_a_layer():
    """A new subpackage or top-level module is placed in LAYERS (with the reason), not guessed."""
    units = {unit for _, _, unit in sources()}
    assert units <= set(LAYER), f"units without a layer in LAYERS: {sorted(units - set(LAYER))}"
    assert len(LAYER) == sum(len(units) for units in LAYERS), "a unit in two layers"


def test_layers_point_down():
    """A module imports from its own layer and the layers below it (lazy imports included)."""
    upward = [f"{where(path, line)}: layers point down: {name} ({unit}, layer {LAYER[unit]}) imports "
              f"{module} ({unit_of(module)}, layer {LAYER.get(unit_of(module))}); {unit} may import only "
              f"{', '.join(sorted(ALLOWED[unit]))}"
              for path, name, unit in sources() for line, module, _ in imports(path, name)
              if unit_of(module) not in ALLOWED.get(unit, ())]
    assert not upward, "imports that point up:\n" + "\n".join(upward)


def test_private_names_stay_in_their_subpackage():
    """``_name`` (a module or an attribute) is imported only inside the subpackage that defines it."""
    crossing = [f"{where(path, line)}: private name crosses a subpackage: {name} ({unit}) imports "
                f"{module}{'.' + attribute if attribute else ''} ({unit_of(module)}); make it public "
                "in its module or move it"
                for path, name, unit in sources() for line, module, attribute in imports(path, name)
                if unit_of(module) != unit and private(*module.split("."), attribute or "")]
    assert not crossing, "private names imported from another subpackage:\n" + "\n".join(crossing)


def unused_names(tree: ast.Module, line: int) -> list[str]:
    """The names the import statement spanning ``line`` binds and the module never reads."""
    read = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return [(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)
            if isinstance(node, (ast.Import, ast.ImportFrom)) and node.lineno <= line <= node.end_lineno
            for alias in node.names if (alias.asname or alias.name).split(".")[0] not in read]


def test_no_re_exports_outside_an_init():
    """``# noqa: F401`` keeps a name importable from a module that does not use it (a module kept
    under the line cap by re-exporting what moved out): only a package's ``__init__.py`` may."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "__init__.py":
            continue
        text = path.read_text(encoding="utf-8")
        for line, content in enumerate(text.splitlines(), start=1):
            if NOQA_F401.search(content):
                unused = unused_names(ast.parse(text), line)
                found.append(f"{where(path, line)}: re-export (noqa: F401) outside an __init__.py: "
                             + (f"{', '.join(unused)} unused here, import them from their own module"
                                if unused else "every name is used here, drop the noqa"))
    assert not found, "re-exports:\n" + "\n".join(found)


def test_modules_import_a_name_from_the_module_that_defines_it():
    """Inside the package, ``from ordrank.results import atomic_path`` (a name a package's __init__.py
    re-exports from a public module) is written ``from ordrank.results.files import atomic_path``: a
    reader finds the name where the import says. A package's submodules (``from ordrank.metrics import
    letor``), names its __init__.py defines and the public face of a private module
    (``ordrank.algorithms.online.Rule``, from ``_base``) stay."""
    def re_exported(package: str) -> dict[str, str]:
        """{name: the public module it comes from} of a package's __init__.py."""
        tree = ast.parse(MODULES[package].read_text(encoding="utf-8"))
        return {alias.asname or alias.name: node.module for node in tree.body if isinstance(node, ast.ImportFrom)
                and node.level == 0 and node.module and not private(*node.module.split("."))
                for alias in node.names}

    found = []
    for name, path in MODULES.items():
        if path.name == "__init__.py":
            continue
        for line, module, attribute in imports(path, name):
            if attribute and MODULES.get(module, path).name == "__init__.py" \
                    and (source := re_exported(module).get(attribute)):
                found.append(f"{where(path, line)}: {attribute} through {module}'s __init__.py (from {source})")
    assert not found, "import each name from the module that defines it:\n" + "\n".join(found)


def test_no_module_over_300_lines():
    """The package's modules, the experiment scripts and the benchmarks: split by responsibility."""
    folders = [PACKAGE, REPO / "experiments", REPO / "benchmarks"]
    long = {str(p.relative_to(REPO)): n for folder in folders for p in folder.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 300}
    assert not long, f"modules over 300 lines: {long}"
