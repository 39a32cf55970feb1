"""Get the real data sets: ``python -m ordrank.data list | fetch NAME... | fetch all | check NAME... |
import NAME PATH``.

``list`` shows each known set, whether it is complete under the data directory (every pinned
checksum matches), its size and where it comes from; ``fetch`` downloads, verifies and unpacks
(see :mod:`ordrank.datasets.fetch`); ``check`` exits 1 naming how to get each missing set;
``import`` installs a set from a local folder or archive (offline), verified the same way;
``mirror-paths`` prints every file a mirror must serve for the named sets.
The data directory is ``--data-dir``, else ``$ORDRANK_DATA``, else ``data/``.
"""
from __future__ import annotations

import argparse
import sys

from ordrank.datasets import fetch, registry
from ordrank.datasets.install import install_local, mirror_paths
from ordrank.datasets.data_dir import resolve_data_dir


DESCRIPTION = ("Get the real data sets into the data directory (--data-dir, else $ORDRANK_DATA, else data/): "
               "list them, fetch NAME... (or all) from the internet, check NAME..., import NAME PATH from a "
               "local folder or archive (offline: files copied from another machine or a mirror; "
               "mirror-paths NAME... lists them). Every file is verified against its pinned checksum; the "
               "web-scale sets downloaded by hand (MSLR-WEB, Yahoo!, Istella) are checked at import for their "
               "layout and published sizes.")


def _size(n_bytes: int) -> str:
    return f"{n_bytes / 1e6:.1f} MB" if n_bytes >= 1e5 else f"{n_bytes / 1e3:.0f} kB"


def list_sets(data_dir=None) -> str:
    """The ``list`` table: name, state, size (on disk, else expected), folder, origin."""
    rows = [("NAME", "STATE", "SIZE", "FOLDER", "FROM")]
    for name, ds in registry.DATASETS.items():
        found = fetch.status(name, data_dir)
        if found.complete:
            state = "complete" if found.checksummed else "present (no pinned checksums)"
        elif found.present:
            state = f"INCOMPLETE: {found.problems[0]}" + (f" (+{len(found.problems) - 1})" if len(found.problems) > 1
                                                         else "")
        else:
            state = "absent" if ds.downloads else "absent (manual download)"
        size = _size(found.size) if found.present else ds.size
        rows.append((name, state, size, found.path.name + "/", ds.origin))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    lines = [f"data directory: {resolve_data_dir(data_dir).absolute()}"]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[4] for row in rows]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ordrank.data", description=DESCRIPTION)
    parser.add_argument("--data-dir", help="data directory (default: $ORDRANK_DATA, else data/)")
    commands = parser.add_subparsers(dest="command", required=True)
    show = commands.add_parser("list", help="each known set: complete?, size, origin")
    get = commands.add_parser("fetch", help="download, verify and unpack sets (NAME... or all)")
    get.add_argument("names", nargs="+", metavar="NAME")
    get.add_argument("--base-url", help="mirror root: <base-url>/<folder>/<path> (default: $ORDRANK_DATA_URL)")
    get.add_argument("--force", action="store_true", help="download even when the set is complete")
    check = commands.add_parser("check", help="exit 1 unless every named set is complete")
    check.add_argument("names", nargs="+", metavar="NAME")
    local = commands.add_parser("import", help="install a set from a local folder or archive (verified)")
    local.add_argument("name", metavar="NAME")
    local.add_argument("path", metavar="PATH", help="a folder or an archive (zip, tar.*) holding the set")
    paths = commands.add_parser("mirror-paths", help="every file a mirror must serve for the sets, one per line")
    paths.add_argument("names", nargs="+", metavar="NAME")
    for sub in (show, get, check, local, paths):  # also accept --data-dir after the command
        sub.add_argument("--data-dir", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    try:
        if args.command == "list":
            print(list_sets(args.data_dir))
            return 0
        if args.command == "import":
            registry.get(args.name)
            try:
                path = install_local(args.name, args.path, args.data_dir)
            except registry.FetchError as error:
                print(f"error: {error}", file=sys.stderr)
                return 1
            print(f"{args.name}: complete at {path} (from {args.path})")
            return 0
        if args.command == "mirror-paths":
            for name in args.names:
                print("\n".join(mirror_paths(name)))
            return 0
        names = list(registry.DATASETS) if args.command == "fetch" and args.names == ["all"] else args.names
        for name in names:
            registry.get(name)
        if args.command == "check":
            lines = fetch.missing(names, args.data_dir)
            print("\n".join(lines) or "complete: " + ", ".join(names), file=sys.stderr if lines else sys.stdout)
            return 1 if lines else 0
        failed = 0
        for name in names:
            if args.names == ["all"] and not registry.DATASETS[name].downloads:
                print(f"{name}: skipped, {registry.DATASETS[name].manual}", file=sys.stderr)
                continue
            try:
                path = fetch.fetch(name, args.data_dir, args.base_url, args.force)
            except registry.FetchError as error:
                print(f"error: {error}", file=sys.stderr)
                failed += 1
            else:
                print(f"{name}: complete at {path}")
        return 1 if failed else 0
    except ValueError as error:  # an unknown set name
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
