"""The package's house: no import runs in a circle (the registry depends on the loaders, never the
reverse), counting the imports made inside functions too."""
import ast
import graphlib
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "src" / "ordrank"


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """{module: the ordrank modules it imports}, every import statement (lazy ones included)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        edges = set()
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
                targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
            elif isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                continue
            edges |= {t for t in targets if t in modules and t != name}
        graph[name] = edges
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


def test_no_module_over_300_lines():
    """The package's modules, the experiment scripts and the benchmarks: split by responsibility."""
    folders = [PACKAGE, REPO / "experiments", REPO / "benchmarks"]
    long = {str(p.relative_to(REPO)): n for folder in folders for p in folder.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 300}
    assert not long, f"modules over 300 lines: {long}"
