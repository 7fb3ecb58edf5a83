"""paipu's command line: thin — parse options, call the public library (``paipu.*``,
docs/api.md), print with rich. It imports no other paipu module (tests/test_layers.py):
``paipu``'s names are imported on first use, so a command loads only what it runs.

Exit codes: 0 clean, 1 violations found, 2 bad input or usage.
"""

from __future__ import annotations

import contextlib
import inspect
import os
import re
import sys
import time
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Annotated, Any, NoReturn, overload

import typer
import typer.core
from rich.cells import cell_len
from rich.console import Console
from rich.segment import Segment

import paipu
from paipu import fmt as human  # numbers for people (small, no heavy imports)


class _Group(typer.core.TyperGroup):
    """The command group; ``--ray`` may come without its address (click cannot say that).
    A usage error (a missing argument, an unknown option, a value of the wrong type) is one
    line, like every other error, not typer's usage text and box."""

    def parse_args(self, ctx, args):
        with one_line_usage_errors():
            return super().parse_args(ctx, args)

    def invoke(self, ctx):
        name = next(iter(getattr(ctx, "_protected_args", None) or ctx.args), None)  # the command's
        with one_line_usage_errors(f"{ctx.command_path} {name}" if name in self.commands else ctx.command_path):
            return super().invoke(ctx)

    def main(self, args=None, *rest, **kw):
        for command in self.commands.values():
            command.help = unwrap(command.help)
        try:
            return super().main(ray_flag_args(list(sys.argv[1:] if args is None else args)), *rest, **kw)
        except OSError as e:  # storage that fails under any command (a server gone): one line, never a traceback
            # paipu.StoreError only when its module was loaded: else none could come (and importing it costs)
            if "paipu.replay.io.store" not in sys.modules or not isinstance(e, paipu.StoreError):
                raise
            err.print("[bold red]error:[/] ", markup=True, end="")
            err.print(str(e), markup=False, soft_wrap=True)
            raise SystemExit(2) from None


@contextlib.contextmanager
def one_line_usage_errors(where: str = "paipu") -> Iterator[None]:
    """click's usage errors as ``error: paipu CMD: MESSAGE (paipu CMD --help)``, exit 2
    (*where*: the command, when the error does not say)."""
    # typer 0.29 carries its own copy of click (typer._click); its exceptions are those
    from typer._click.exceptions import NoArgsIsHelpError, UsageError

    try:
        yield
    except NoArgsIsHelpError:
        raise  # (the help itself, asked for by giving nothing)
    except UsageError as e:
        where = e.ctx.command_path if e.ctx is not None else where
        err.print("[bold red]error:[/] ", markup=True, end="")
        err.print(f"{where}: {e.format_message().rstrip('.')} ({where} --help)", markup=False, soft_wrap=True)
        raise typer.Exit(e.exit_code) from None


def ray_flag_args(args: list[str]) -> list[str]:
    """``--ray`` not followed by an address gets the address ``local``.

    >>> ray_flag_args(["audit", "ds", "--ray"]), ray_flag_args(["audit", "--ray", "ds"])
    (['audit', 'ds', '--ray', 'local'], ['audit', '--ray', 'local', 'ds'])
    >>> ray_flag_args(["audit", "--ray", "ray://head:10001", "ds"])[2:]
    ['ray://head:10001', 'ds']
    """
    out: list[str] = []
    for k, arg in enumerate(args):
        out.append(arg)
        if arg == "--ray":
            nxt = args[k + 1] if k + 1 < len(args) else ""
            if not (nxt in ("auto", "local") or nxt.startswith("ray://") or re.fullmatch(r"[\w.-]+:\d+", nxt)):
                out.append("local")
    return out


app = typer.Typer(
    cls=_Group,
    name="paipu",
    help="Replay, audit and analyse hands of Chinese climbing card games ('paipu games' lists them).",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _help_without_types() -> None:
    """typer 0.29 shows a parameter's Python type in ``--help`` (``<str>``, ``<int>``,
    ``<list[str]>``, even ``<bool>`` after a flag, as if it took a value). Shown instead:
    an option's metavar, by default N for a number, else its long name in capitals
    (``--game GAME``); a flag and an argument bare (an argument is named already)."""
    TyperArgument, TyperOption = typer.core.TyperArgument, typer.core.TyperOption
    shown = getattr(TyperOption, "display_type_rich", None)
    if shown is None or getattr(shown, "untyped", False):
        return

    def option_metavar(self, ctx):
        if getattr(self, "is_flag", False) or getattr(self, "count", False):
            return None
        if self.metavar is not None:
            return self.metavar
        if getattr(self, "bare_type", lambda: "")() in ("int", "list[int]"):
            return "N"
        return max(self.opts, key=len).lstrip("-").upper()

    def argument_metavar(self, ctx):
        return self.metavar

    # patches of the library's classes, on purpose (mypy takes an assignment to a method for a mistake)
    for f in (option_metavar, argument_metavar):
        setattr(f, "untyped", True)  # noqa: B010
    setattr(TyperOption, "display_type_rich", option_metavar)  # noqa: B010
    setattr(TyperArgument, "display_type_rich", argument_metavar)  # noqa: B010


def unwrap(text: str | None) -> str | None:
    """A docstring's paragraphs each on one line: ``--help`` wraps them at the terminal's
    width (typer keeps the line breaks of every paragraph but the first, mid-sentence).

    >>> unwrap('''First line
    ...     goes on.
    ...
    ...     Tables show rates and
    ...     numbers.''')
    'First line goes on.\\n\\nTables show rates and numbers.'
    """
    if not text:
        return text
    return "\n\n".join(p if p.startswith("\b") else " ".join(line.strip() for line in p.splitlines())
                       for p in inspect.cleandoc(text).split("\n\n"))


_help_without_types()


class SafeConsole(Console):
    """A console that prints untrusted text (players' names, ids, anything from a log)
    harmlessly: the text of every segment it writes goes through ``fmt.printable``, so a
    control character in it is shown, not obeyed. Rich's own styles and cursor moves are
    not text (a segment's style, a control segment) and are written as they are. Nor is
    text read as rich markup or emoji codes unless a call asks (``markup=True``): a name
    like ``[/]`` raised MarkupError in every table it was in, ``[vip]老王`` lost its
    bracket and ``x:100:y`` became ``x💯y``."""

    def __init__(self, **options: Any) -> None:
        options.setdefault("markup", False)
        options.setdefault("emoji", False)
        super().__init__(**options)

    def print(self, *objects: Any, **options: Any) -> None:
        # text is made printable before rich sees it: rich drops a bell, a backspace and a
        # carriage return from text without a trace (a file a\rb.jsonl was named ab.jsonl)
        super().print(*(human.printable(x) if isinstance(x, str) else x for x in objects), **options)

    def _render_buffer(self, buffer: Iterable[Segment]) -> str:
        return super()._render_buffer([s if s.control else Segment(human.printable(s.text), s.style) for s in buffer])


err = SafeConsole(stderr=True, highlight=False, soft_wrap=True)  # logs and pipes never wrap at a width
out = SafeConsole(highlight=False, soft_wrap=True)


def dumps(value: object, **options: Any) -> str:
    """json.dumps of *value* (the commands' --json and --jsonl)."""
    import json  # deferred: json is 2-8 ms that --help and most commands never use

    return json.dumps(value, **options)


def fail(message: str, code: int = 2) -> NoReturn:
    err.print("[bold red]error:[/] ", markup=True, end="")
    err.print(human.one_line(message), markup=False, soft_wrap=True)  # (one line, whatever a name in it holds)
    raise typer.Exit(code)


#: --format: the record formats (replay.io.readers.FORMATS) or "auto" (sniffed)
FORMAT_OPT = typer.Option("--format", "--from", help="auto (sniffed), jsonl, text, an importer's format "
                          "(rlcard, rlcard-showdown, douzero, openspiel, botzone, guandan-competition) or a mapping file (.toml)")


def check_format(fmt: str) -> None:
    """Exit 2 unless --from names a format or a usable mapping file (docs/formats.md)."""
    try:
        paipu.check_format(fmt)
    except paipu.MappingError as e:  # the mapping file's own problem, naming it
        fail(str(e))
    except ValueError as e:  # not a format's name
        fail(f"--from {e}")


@app.command()
def games() -> None:
    """List the games paipu knows: names, aliases, variants (the first is the default)."""
    for g in paipu.games():
        out.print(f"{g.name} ({g.title_zh} {g.title}): variants {', '.join(g.variants)}; "
                  f"aliases {', '.join(g.aliases)}", markup=False)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version  # deferred: only --version reads it

        try:
            out.print(f"paipu {version('paipu')}", markup=False)
        except PackageNotFoundError:  # pragma: no cover - run from a checkout without install
            out.print("paipu (not installed)", markup=False)
        raise typer.Exit(0)


@app.callback()
def main_options(
    show_version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                               help="print the version and exit")] = False,
    s3_endpoint: Annotated[str | None, typer.Option(
        "--s3-endpoint", metavar="URL",
        help="the S3-compatible server of s3:// dataset paths (default: AWS_ENDPOINT_URL, else AWS)")] = None,
) -> None:
    """Replay, audit and analyse hands of Chinese climbing card games ('paipu games' lists them)."""
    if s3_endpoint:
        paipu.set_endpoint(s3_endpoint)


def place(value):
    """Option and argument callback of dataset places: ``file:///x`` is the local path /x,
    another URI must name storage paipu opens (a known scheme and a bucket): else one line."""
    if value is None or not any("://" in v for v in ([value] if isinstance(value, str) else value)):
        return value
    checked = paipu.check_place
    try:
        return checked(value) if isinstance(value, str) else [checked(v) for v in value]
    except paipu.StoreError as e:
        fail(str(e))


def writable_file(path: str, what: str, stdout: str = "") -> None:
    """Fail with one line unless *path* can be created or replaced as a file; *stdout* is
    how the command writes to standard output instead (its hint), if it can."""
    folder = os.path.dirname(os.path.abspath(path))
    try:
        paipu.check_target(path)  # what the writer itself refuses, said before any work, with a hint
    except paipu.NotRegularFile:
        if os.path.isdir(path):
            fail(f"{what} {path} is a folder, not a file")
        # a device or a pipe: a replacing write would remove it
        fail(f"{what} {path} is not a regular file" + (f" (for standard output: {stdout})" if stdout else ""))
    except OSError:
        pass  # cannot be looked at (a loop of links, ...): the folder and access checks below say why
    if not os.path.isdir(folder):
        fail(f"{what} {path}: the folder {os.path.dirname(path) or '.'} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        fail(f"{what} {path}: not writable (permission denied)")


def no_hands(path: str, what: str) -> None:
    """Fail with one line if *path* is a dataset that has rejects and no hands table (every
    record ingested into it was rejected): not "no hands found" nor "not a dataset"."""
    said = paipu.rejects_only(path, f" to {what}")
    if said:
        fail(said)


def inside(path: str, folder: str) -> bool:
    """*path* is *folder* or lies within it (links resolved)."""
    path, folder = os.path.realpath(path), os.path.realpath(folder)
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def writable_folder(path: str, what: str) -> None:
    """Fail with one line unless *path* is, or can be made, a writable folder."""
    if os.path.exists(path) and not os.path.isdir(path):
        fail(f"{what} {path} is a file, not a folder")
    probe = os.path.abspath(path)
    while not os.path.exists(probe):
        probe = os.path.dirname(probe)
    if not os.path.isdir(probe):
        fail(f"{what} {path}: {probe} is a file, not a folder")
    if not os.access(probe, os.W_OK | os.X_OK):
        fail(f"{what} {path}: {probe} is not writable (permission denied)")


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):  # pragma: no cover - no affinity on this platform
        return os.cpu_count() or 1


@overload
def capped_workers(workers: int, work: int | None = None, what: str = "block") -> int: ...
@overload
def capped_workers(workers: None, work: int | None = None, what: str = "block") -> None: ...
def capped_workers(workers: int | None, work: int | None = None, what: str = "block") -> int | None:
    """--workers at most the cores, and at most the pieces of *work* when known; a cap
    is said on stderr (a thousand processes for 17 blocks took 2.3 GB on two cores)."""
    if workers is not None and workers < 0:
        fail(f"--workers must be 0 or more (0: every core), got {workers}")
    if workers is None or workers <= 1:
        return workers
    cap = min(cores(), work if work is not None else workers)
    if workers > max(cap, 1):
        why = f"{human.count(cores(), 'core')}" + (f", {human.count(work, what)} of work" if work is not None else "")
        err.print(f"--workers {workers:,}: {max(cap, 1):,} used ({why})", markup=False)
        return max(cap, 1)
    return workers


def os_fail(e: OSError, path: str) -> None:
    """An OS error while writing *path* as one line (full disk, permissions, ...)."""
    fail(f"{e.filename or path}: {e.strerror or e}")


@app.command()
def ingest(
    inputs: Annotated[list[str], typer.Argument(help="files, folders or globs (JSONL or text, optionally .gz)",
                                                callback=place)],
    out_dir: Annotated[str, typer.Option("--out", "-o", help="dataset folder (created or added to)", callback=place)],
    fmt: Annotated[str, FORMAT_OPT] = "auto",
    batch: Annotated[int, typer.Option(help="hands per part file (bounds memory)")] = 5_000,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no per-reject lines")] = False,
    workers: Annotated[int | None, typer.Option(help="parsing processes (default: all cores for large inputs; at most the cores)")] = None,
    follow: Annotated[bool, typer.Option("--follow", help="keep reading new and appended files until Ctrl-C "
                                         "(SIGINT or SIGTERM: exit 0 after the batch in hand; docs/format.md)")] = False,
    interval: Annotated[float, typer.Option(metavar="SECONDS", help="--follow: seconds between polls")] = 2.0,
    settle: Annotated[float, typer.Option(metavar="SECONDS", help="--follow: a text file's last hand, or a "
                                          "whole-document file, is taken once unchanged this long")] = 10.0,
    idle_exit: Annotated[float | None, typer.Option(metavar="SECONDS", help="--follow: stop after this long "
                                                    "with no input file changing")] = None,
) -> None:
    """Read hand histories into a Parquet dataset (hands, actions, rejects); with --follow,
    keep reading them as they are written."""
    if not follow and (interval, settle, idle_exit) != (2.0, 10.0, None):
        fail("--interval, --settle and --idle-exit go with --follow")
    if follow and workers is not None:
        fail("--workers does not go with --follow (the follower parses in its own process)")
    try:
        files = paipu.expand_inputs(inputs)
    except paipu.InputError as e:
        fail(str(e))
    if not files and not follow:
        fail("no input files found (paipu reads .jsonl, .ndjson, .json, .paipu and .txt, also gzipped)")
    check_format(fmt)
    writable_folder(out_dir, "--out")

    def on_reject(item) -> None:
        if not quiet:
            err.print(human.one_line(f"{item.where}: {item.code}: {item.message}"), markup=False, soft_wrap=True)

    if follow:
        _follow(inputs, out_dir, fmt, batch, interval, settle, idle_exit, on_reject, quiet)
        return

    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn  # deferred: rich.progress costs 25 ms at startup

    progress = Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                        TimeRemainingColumn(), console=err, disable=not err.is_terminal, transient=True)
    total = sum(map(paipu.read_size, files))

    def on_batch(size: int) -> None:  # the total is exact below 4 GiB per .gz file; never past it
        progress.advance(task, min(size, total - progress.tasks[0].completed))

    with progress:
        task = progress.add_task("ingest", total=total)
        try:
            stats = paipu.ingest_files(files, out_dir, fmt, batch_size=batch, workers=capped_workers(workers),
                                       on_reject=on_reject, on_batch=on_batch)
        except (paipu.DatasetLocked, paipu.DatasetWriteError) as e:
            fail(str(e))
    for source, line in stats.held:
        err.print(f"{source}:{line}: held back: the file's last line has no line end and is not a whole record "
                  "(still being written?); ingest again once it is complete, or end the line to have it rejected",
                  markup=False, soft_wrap=True)
    out.print(ingested_line(stats, len(files), out_dir), markup=False)
    if not paipu.is_dataset(out_dir) and not (stats.rejected or stats.held):
        err.print(f"note: the inputs held no hand, so {out_dir} is no dataset yet (ingest hands into it to make one)",
                  markup=False, soft_wrap=True)


def ingested_line(stats, files: int, out_dir: str, held: str = "held back") -> str:
    """What an ingest took: hands, files, duplicates, rejects by code, lines *held* back."""
    codes = ", ".join(f"{k} {v:,}" for k, v in sorted(stats.by_code.items()))
    return (f"ingested {human.count(stats.written, 'hand')} from {human.count(files, 'file')} into {out_dir}; "
            f"{stats.duplicates:,} already there, {stats.rejected:,} rejected" + (f" ({codes})" if codes else "")
            + (f", {len(stats.held):,} {held}" if stats.held else ""))


def _follow(inputs, out_dir, fmt, batch, interval, settle, idle_exit, on_reject, quiet) -> None:
    """``ingest --follow``: poll until SIGINT/SIGTERM (or --idle-exit), then one line, exit 0."""
    if paipu.is_uri(out_dir):
        fail(f"--follow writes a local dataset (its lock and read positions), not {out_dir}")
    if interval <= 0 or settle < 0 or (idle_exit is not None and idle_exit < 0):
        fail("--interval must be more than 0 seconds, --settle and --idle-exit at least 0")

    def on_poll(delta) -> None:
        if not quiet:
            err.print(f"{time.strftime('%H:%M:%S')} +{delta.written:,} hands, {delta.duplicates:,} already there, "
                      f"{delta.rejected:,} rejected", markup=False)

    def on_wait(why: str) -> None:
        err.print(f"waiting: {why}", markup=False, soft_wrap=True)

    try:
        stats = paipu.follow(inputs, out_dir, fmt, batch, interval, settle, idle_exit, on_reject, on_poll, on_wait)
    except (paipu.DatasetLocked, paipu.DatasetWriteError) as e:
        fail(str(e))
    why = f"no input changed for {idle_exit:g} s" if stats.stopped == "idle" else stats.stopped
    out.print(f"stopped ({why}): " + ingested_line(stats, stats.files, out_dir, "held back (being written)"), markup=False)


@app.command()
def convert(
    inputs: Annotated[list[str], typer.Argument(help="files, folders or globs")],
    to: Annotated[str, typer.Option("--to", help="jsonl, text, openspiel, rlcard-showdown or botzone")],
    output: Annotated[str | None, typer.Option("--out", "-o", help="output file (default: standard output)")] = None,
    fmt: Annotated[str, FORMAT_OPT] = "auto",
) -> None:
    """Convert hand records between JSONL and the paipu text format (lossless), from other
    tools' logs (--from), or to OpenSpiel's, RLCard-Showdown's and Botzone's (docs/formats.md)."""
    if to not in paipu.CONVERT_TO:
        fail(f"--to must be {', '.join(paipu.CONVERT_TO[:2])} or {', '.join(paipu.CONVERT_TO[2:])}, got {to!r}")
    check_format(fmt)
    if output:
        writable_file(output, "--out", stdout="leave out --out")

    def on_bad(line: str) -> None:
        err.print(human.one_line(line), markup=False, soft_wrap=True)

    try:
        data, bad = paipu.convert(inputs, to, fmt, on_bad)
    except paipu.InputError as e:
        fail(str(e))
    if not data and not bad:  # (it wrote nothing, said nothing and exited 0)
        datasets = [x for x in inputs if paipu.is_dataset(x)]
        fail("no hands found in the inputs" + (f" ({datasets[0]} is a dataset: convert reads record files; "
                                               f"'paipu replay {datasets[0]} --hand ID' shows a hand of it)"
                                               if datasets else ""))
    if output:
        try:
            paipu.write_bytes(output, data)  # the old file or the new one, whatever happens
        except OSError as e:
            os_fail(e, output)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    if bad:
        raise typer.Exit(1)


def _game_or_fail(game: str, variant: str | None, level: str | None) -> None:
    """Exit 2 unless *game* (and *variant*) is known and a --level is given only to a game
    played at a level."""
    try:
        rules = paipu.find_rules(game, variant)
    except paipu.UnknownGame as e:
        fail(str(e))
    if level is not None and not paipu.find_game(rules.game).levels:
        fail(f"--level applies to games played at a level, not {rules.game}")


GAME_OPT = typer.Option("--game", "-g", help="the game, or an alias ('paipu games' lists them)")
# no -v: people read -v as --verbose (README, "Options")
VARIANT_OPT = typer.Option("--variant", help="variant (default: the game's usual one)")
LEVEL_OPT = typer.Option("--level", help="the level rank (games played at a level)")


@app.command()
def combo(
    cards: Annotated[str, typer.Argument(help='cards, e.g. "3h 3s 3d 4c"')],
    game: Annotated[str, GAME_OPT],
    variant: Annotated[str | None, VARIANT_OPT] = None,
    level: Annotated[str | None, LEVEL_OPT] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON output")] = False,
) -> None:
    """Name the combination that CARDS form (or say they form none)."""
    _game_or_fail(game, variant, level)
    try:
        items = paipu.readings(game, cards, variant, level)
    except ValueError as e:  # not a play of the game: a card misspelt, too many, more than the deck holds
        fail(str(e))
    if not items:
        out.print(dumps({"valid": False}) if as_json else "no combination", markup=False)
        return
    if as_json:
        out.print(dumps({"valid": True, **items[0], "readings": items}, ensure_ascii=False), markup=False, soft_wrap=True)
    else:
        for it in items:
            bomb = f", bomb tier {it['tier']}" if it["bomb"] else ""
            rank = f"rank {it['rank']}" if it["rank"] else "below every rank"  # OpenSpiel's rocket as the lowest bomb
            out.print(f"{it['type']} {it['name_zh']}: {it['cards']} cards, {rank}{bomb}", markup=False)


@app.command()
def beats(
    a: Annotated[str, typer.Argument(help="the cards played")],
    b: Annotated[str, typer.Argument(help="the last play they answer")],
    game: Annotated[str, GAME_OPT],
    variant: Annotated[str | None, VARIANT_OPT] = None,
    level: Annotated[str | None, LEVEL_OPT] = None,
) -> None:
    """Print yes when A, played on B, is legal and beats it; no otherwise."""
    _game_or_fail(game, variant, level)
    try:
        yes = paipu.beats(game, a, b, variant, level, strict=True)  # each a play, A and B from one deck
    except ValueError as e:
        fail(str(e))
    out.print("yes" if yes else "no", markup=False)


class CutHands:
    """The hands whose decisions an internal error cut short, over an audit's parts: counted,
    not kept (memory does not grow with the hands), the first named; and the warning that
    says so (the verdicts stand; the fraud screens see fewer decisions of these hands)."""

    def __init__(self) -> None:
        self.count = 0
        self.first = ""

    def add(self, summary) -> None:
        """An audit's ``on_part``: a part's summary (:class:`PartSummary`)."""
        self.count += len(summary.cut)
        self.first = self.first or (summary.cut[0] if summary.cut else "")

    def warn(self, ds: str) -> None:
        if self.count:
            err.print(f"{ds}: warning: the decisions of {human.count(self.count, 'hand')} stop early on an internal "
                      f"error (a paipu bug, please report it), first {self.first}", markup=False, soft_wrap=True)


@app.command()
def audit(
    inputs: Annotated[list[str], typer.Argument(help="record files (any format paipu reads), folders, globs or datasets",
                                                callback=place)],
    jsonl: Annotated[bool, typer.Option("--jsonl", help="one JSON verdict per hand (format.md)")] = False,
    fmt: Annotated[str, FORMAT_OPT] = "auto",
    force: Annotated[bool, typer.Option("--force", help="re-audit a dataset's hands that were audited already")] = False,
    workers: Annotated[int | None, typer.Option(help="processes for a dataset (default: all cores)")] = None,
    ray: Annotated[str | None, typer.Option(
        "--ray", metavar="[ADDRESS]",
        help="audit datasets on a Ray cluster: auto, ray://HOST:PORT, or alone for a local one")] = None,
    decisions: Annotated[bool, typer.Option("--decisions", help="also write a dataset's decisions table (for paipu fraud)")] = False,
) -> None:
    """Re-validate every move of every hand; exit 1 if any hand breaks a rule.

    A dataset (a folder made by ingest) gets its verdicts, plays, outcomes and seats
    tables written beside the ingested ones; only hands not audited yet are replayed.
    """
    tally = paipu.Tally()
    check_format(fmt)
    datasets = [x for x in inputs if paipu.is_dataset(x)]
    files = [x for x in inputs if not paipu.is_dataset(x)]
    for x in files:
        no_hands(x, "audit")
    for ds in datasets:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress  # deferred: rich.progress costs 25 ms at startup

        in_ds = paipu.dataset_hands(ds)
        progress = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                            console=err, disable=not err.is_terminal, transient=True)
        audited = 0
        cut = CutHands()

        def on_part(s) -> None:
            nonlocal audited
            audited += 0 if s.skipped else s.hands
            cut.add(s)  # noqa: B023 - called within this iteration only
            progress.advance(task, s.hands)  # noqa: B023

        with progress:
            task = progress.add_task("audit", total=in_ds)
            try:
                paipu.audit_dataset(ds, force=force, workers=capped_workers(workers), on_part=on_part,
                                    ray_address=ray, decisions=decisions)
            except (paipu.DatasetLocked, paipu.DatasetWriteError, paipu.ClusterError) as e:
                fail(str(e))
            except KeyboardInterrupt:  # (Ctrl-C: exit 130 without a word before)
                err.print(f"{ds}: interrupted; the {human.count(audited, 'hand')} audited are kept, and the same "
                          "command goes on from there", markup=False, soft_wrap=True)
                raise typer.Exit(130) from None
        err.print(f"{ds}: audited {audited:,} of {human.count(in_ds, 'hand')} ({in_ds - audited:,} "
                  f"{'was' if in_ds - audited == 1 else 'were'} audited already)", markup=False)
        cut.warn(ds)
        if not jsonl:  # counted as the files are scanned: a billion hands fit
            for code, n in paipu.verdict_counts(ds).items():
                tally.add(code, n)
            continue
        for v in paipu.dataset_verdicts(ds):
            tally.add_verdict(v)
            sys.stdout.write(dumps(v.to_json(), ensure_ascii=False) + "\n")
    try:
        for v in paipu.iter_verdicts(files, fmt) if files else ():
            tally.add_verdict(v)
            if jsonl:
                sys.stdout.write(dumps(v.to_json(), ensure_ascii=False) + "\n")
            elif v.violation is not None:
                where = f"action {v.violation.action}" if v.violation.action is not None else "record"
                out.print(human.one_line(f"{v.source}:{v.line} {v.id or '?'}: {v.violation.code} at {where}: "
                                         f"{v.violation.message}"), markup=False, soft_wrap=True)
    except paipu.InputError as e:
        fail(str(e))
    if not jsonl:
        summary = ", ".join(f"{k} {n:,}" for k, n in sorted(tally.by_code.items()))
        out.print(f"{human.count(tally.hands, 'hand')}: {tally.hands - tally.bad:,} ok, {tally.bad:,} with violations"
                  + (f" ({summary})" if summary else ""), markup=False)
    if tally.unreadable:
        fail(f"{human.count(tally.unreadable, 'input')} could not be read (see their verdicts)")
    if tally.hands == 0:
        fail("no hands found in the inputs")
    raise typer.Exit(1 if tally.bad else 0)


@app.command()
def simulate(
    game: Annotated[str, GAME_OPT],
    settings: Annotated[list[str] | None, typer.Argument(
        help="with --compare: the settings, each 'base', a .toml file or rule changes like 'kinds-=four_two_single'",
        show_default=False)] = None,
    hands: Annotated[int, typer.Option("--hands", "-n", help="how many hands (deals, with --compare)")] = 100,
    seed: Annotated[int, typer.Option("--seed", "-s", help="random seed (same seed, same hands)")] = 0,
    output: Annotated[str, typer.Option("--out", "-o", help="output file: .jsonl or .paipu, gzipped with .gz ('-': standard output)")] = "-",
    variant: Annotated[str | None, VARIANT_OPT] = None,
    escape_rate: Annotated[float, typer.Option(help="chance that a hand ends with a seat escaping")] = 0.0,
    rule: Annotated[list[str] | None, typer.Option(
        "--rule", "-r", help="a rule change NAME=VALUE (sets: NAME+=A,B or NAME-=A,B); repeatable")] = None,
    rules_file: Annotated[str | None, typer.Option("--rules", help="rule changes from a TOML file")] = None,
    compare: Annotated[bool, typer.Option(
        "--compare", help="duplicate deals: play the same deals under each SETTING given as arguments")] = False,
    bot: Annotated[str, typer.Option("--bot", help="fast (default), strong, simple or search (by the evaluator: slow)")] = "fast",
    budget: Annotated[float | None, typer.Option("--budget", help="--bot search: time per decision in ms (default 50), turned into samples")] = None,
    workers: Annotated[int | None, typer.Option(help="processes (default: every core; at most the cores and the blocks of 120 hands)")] = None,
    players: Annotated[int | None, typer.Option("--players", help="population mode: draw the seats from N players with their own hours and think times")] = None,
    cheat: Annotated[str | None, typer.Option("--cheat", help="plant cheaters among --players: KIND=COUNT, each optionally followed by @OPTION (several allowed), joined by commas; kinds collude, dump, soft, share, few (pairs), bot; options: a share in (0,1] (soft=2@0.15: spare on 15% of chances; share=2@0.3: informed play on 30% of decisions as partners), xM (dump=2@x4: throw only hands at multiplier >= 4), seat=M (sit together ~M x chance; seat=0: at chance), hands=N (about N hands each); docs/fraud.md")] = None,
    labels: Annotated[str | None, typer.Option("--labels", help="write who is who (player,kind,mate) to this CSV file")] = None,
) -> None:
    """Play complete hands with bots and write their records; with --compare, the same deals
    under several rule settings (each record's params name its setting). With --players, a
    population: players with schedules and human think times, cheaters planted on request
    (docs/fraud.md)."""
    if hands < 0:
        fail("--hands must be 0 or more")
    if bot not in paipu.BOT_LEVELS:
        fail(f"--bot must be one of {', '.join(paipu.BOT_LEVELS)}, got {bot!r}")
    if budget is not None and (bot != "search" or not budget > 0):
        fail("--budget is the search bot's time per decision: give --bot search and a budget above 0 ms")
    if settings and not compare:
        fail(f"unexpected argument {settings[0]!r} (settings are compared with --compare)")
    if compare and len(settings or ()) < 2:
        fail("--compare needs two or more settings, e.g. --compare base 'kinds-=four_two_single'")
    if workers is not None and workers < 0:
        fail("--workers must be 0 or more (0: every core)")
    compared = (settings or []) if compare else None
    try:
        params = paipu.settings_of(game, variant, rule or [], rules_file, compared)
        plain = " ".join([f"--rules {rules_file}"] * bool(rules_file) + [f"--rule {r}" for r in rule or []])
        for spec, p in zip(compared if compared is not None else [plain or "the rules"], params):
            paipu.try_setting(game, variant, p, spec)
    except ValueError as e:  # (UnknownGame and SettingError are ValueErrors)
        fail(str(e))
    try:
        text = paipu.simulated_format(output) == "text"
    except ValueError as e:
        fail(f"--out {output}: {e}")
    if output != "-":
        writable_file(output, "--out", stdout="--out - or leave it out")
    if (cheat or labels) and players is None:
        fail("--cheat and --labels need --players N (population mode)")
    if labels:
        writable_file(labels, "--labels")
    if players is not None:
        _simulate_population(game, variant, hands, seed, players, cheat, labels, output, text, escape_rate)
        return
    job_list = paipu.simulation_jobs(game, variant, hands, seed, params, compare=compare, escape_rate=escape_rate,
                                     bot=bot, text=text, budget=budget)
    total = hands * len(params)
    if workers is None or workers == 0:
        workers = paipu.default_workers(hands, len(params), cores())
    else:
        workers = capped_workers(workers, paipu.job_count(hands, len(params)))
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn  # deferred: rich.progress costs 25 ms at startup

    progress = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                        TimeRemainingColumn(), console=err, disable=not err.is_terminal, transient=True)
    try:
        with progress:
            task = progress.add_task("simulate", total=total)
            n, interrupted = paipu.write_simulation(output, job_list, workers,
                                                    on_hands=lambda k: progress.advance(task, k))
    except BrokenPipeError:  # the reader of stdout is gone (| head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(0) from None
    except OSError as e:
        os_fail(e, output)
    if output != "-":
        err.print(f"wrote {human.count(n, 'hand')} to {output}" + (" (interrupted: every hand in it is complete)" if interrupted else ""),
                  markup=False)
    if interrupted:
        raise typer.Exit(130)


def _simulate_population(game: str, variant: str | None, hands: int, seed: int, players: int, cheat: str | None,
                         labels: str | None, output: str, text: bool, escape_rate: float) -> None:
    """``paipu simulate --players``: one process, hands in time order (the seating of a
    hand depends on who played before)."""
    try:
        pop, records = paipu.simulate_population(game, variant, hands, seed, players, paipu.parse_cheats(cheat),
                                                 escape_rate=escape_rate)
        if labels:
            try:
                paipu.write_labels(labels, pop)
            except OSError as e:
                os_fail(e, labels)
        n = paipu.write_records(output, records, text)
        if output != "-":
            err.print(f"wrote {human.count(n, 'hand')} to {output}", markup=False)
    except ValueError as e:  # (UnknownGame is a ValueError)
        fail(str(e))
    except OSError as e:
        os_fail(e, output)


@app.command("replay")
def replay_cmd(
    source: Annotated[str, typer.Argument(help="a record file (any format), a folder or a dataset", callback=place)],
    hand: Annotated[str | None, typer.Option("--hand", help="the hand id (default: the first hand)")] = None,
    seat: Annotated[int | None, typer.Option("--seat", help="show only what this seat could see")] = None,
    step: Annotated[bool, typer.Option("--step", help="one action per key: space/enter next, b back, q quit")] = False,
    lang: Annotated[str, typer.Option("--lang", help="en or zh")] = "en",
    html_out: Annotated[str | None, typer.Option("--html", help="write the hand as one HTML page (a folder with --hands)")] = None,
    hands: Annotated[list[str] | None, typer.Option(
        "--hands", help="several hand ids (comma-separated, repeatable, or @FILE with one id a line) into the --html folder")] = None,
    review: Annotated[bool, typer.Option("--review", help="mark the mistakes and blunders (paipu review's defaults)")] = False,
) -> None:
    """Show a recorded hand move by move; exit 1 if it breaks a rule."""
    if lang not in ("en", "zh"):
        fail(f"--lang must be en or zh, got {lang!r}")
    if hands is not None:
        if html_out is None:
            fail("--hands writes HTML pages: give the folder with --html DIR")
        try:
            wanted = paipu.hand_ids(hands)
        except OSError as e:  # InputError: one line naming the file
            fail(str(e))
        if not wanted:
            fail("--hands: no hand ids given")
        try:
            records = paipu.find_records(source, wanted)
        except paipu.InputError as e:
            fail(str(e))
        raise typer.Exit(_write_pages(records, wanted, html_out, lang, source, review))
    try:
        found = paipu.find_records(source, None if hand is None else [hand], first=True)
    except paipu.InputError as e:
        fail(str(e))
    record = next(iter(found.values()), None)
    if record is None and hand:
        fail(f"no hand {hand!r} in {source}" + _nearest(source, hand))
    if record is None:
        fail(f"no readable hand in {source}")
    reviewed = _reviewed(record, source) if review else None
    if html_out is not None:
        try:
            broken = paipu.write_page(record, html_out, lang, review=reviewed)
        except OSError as e:
            fail(f"{html_out}: cannot write: {e.strerror}")
        err.print(f"wrote {html_out}" + (f" (violation {broken.code})" if broken else ""), markup=False)
        raise typer.Exit(1 if broken is not None else 0)
    if seat is not None and not 0 <= seat < len(record["players"]):
        fail(f"--seat must be 0..{len(record['players']) - 1}")
    marks = None if reviewed is None else paipu.review_marks(reviewed, lang)
    if step and interactive():
        v = paipu.step_through(record, out, typer.getchar, seat=seat, lang=lang, marks=marks)  # a key at a time, no echo
    else:
        v = paipu.render_hand(record, out, seat=seat, lang=lang, marks=marks)
    raise typer.Exit(1 if v is not None else 0)


def _write_pages(records: dict[str, dict], wanted: list[str], folder: str, lang: str, source: str,
                 review: bool = False) -> int:
    """One page per hand and an index.html into *folder* (*review*: each hand reviewed, its
    flags on its page); the exit code (1: a hand breaks a rule or is missing)."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as e:
        fail(f"{folder}: cannot create the folder: {e.strerror}")
    pages: list[tuple[str, paipu.Violation | None]] = []
    bad = 0
    for hand_id in wanted:
        record = records.get(hand_id)
        if record is None:
            err.print(f"{source}: no hand {hand_id!r}", markup=False)
            bad += 1
            continue
        name = paipu.html_name(hand_id)  # one name per id, never index.html, always short
        try:
            v = paipu.write_page(record, os.path.join(folder, name), lang,
                                 review=_reviewed(record, source) if review else None)
        except OSError as e:  # that page is missing (said so); the others and the index still come
            err.print(f"{os.path.join(folder, name)}: cannot write: {e.strerror}", markup=False)
            bad += 1
            continue
        bad += v is not None
        pages.append((hand_id, v))
    index = os.path.join(folder, "index.html")
    try:
        paipu.write_index(index, pages)
    except OSError as e:
        fail(f"{index}: cannot write: {e.strerror}")
    err.print(f"wrote {human.count(len(pages), 'hand')} to {folder}", markup=False)
    return 1 if bad else 0


def _reviewed(record: dict, source: str):
    """The hand's review at the defaults (``replay --review``); a hand the engine cannot
    set up is a one-line error."""
    try:
        return paipu.review_hand(record, previous=paipu.previous_hand(source, record))
    except ValueError as e:
        fail(f"{source}: hand {record['id']!r}: {e}")


def interactive() -> bool:
    """Keys can be read one at a time (standard input is a terminal)."""
    return sys.stdin.isatty()


def _nearest(source: str, hand: str) -> str:
    """"; nearest: a, b" for the ids of *source* that look like *hand* (difflib), and where
    to list them; then the line of a record file that could not be read (the one that gave
    the id *hand*, else the first); "" when there is nothing to say."""
    near = paipu.nearest_ids(source, hand)
    return (f"; nearest: {', '.join(near)}" if near else "") + (f" (list them with 'paipu hands {source}')"
                                                                 if paipu.is_dataset(source) else "") \
        + paipu.unread_note(source, hand)


def _print_frame(df, title: str | None = None, drop: tuple[str, ...] = (), numbers: tuple[str, ...] = ()) -> None:
    """A table for people (numbers via replay.fmt; text columns in *numbers* hold numbers
    written already, aligned right); as wide as it needs off a terminal.

    On a terminal no cell is ever cut (an id to copy, a number): text wraps at its spaces
    only; when the table still does not fit, the columns in *drop* go (least important
    first, said on stderr), then the columns in turns with the leading text columns
    repeated, else the table is laid out a row at a time."""
    from rich.table import Table  # deferred: rich.table costs 25 ms at startup

    rates = human.rate_columns(df.columns)
    family = human.families(df.columns, [c for c in df.columns if df[c].dtype.is_float() and c not in rates])
    shared: dict[str, int] = {}
    for name in df.columns:
        floats = [x for x in df[name].to_list() if isinstance(x, float)] if df[name].dtype.is_float() else []
        if floats and name not in rates:
            shared[family[name]] = max(shared.get(family[name], 0), human.decimals_for(floats))
    heads, cells, right = [], [], []
    for name in df.columns:
        numeric = df[name].dtype.is_numeric()
        heads.append(name + (" %" if numeric and name in rates else ""))
        right.append(numeric or name in numbers)
        cells.append(human.column(name, df[name].to_list(), rates,
                                  shared.get(family[name]) if df[name].dtype.is_float() else None) if numeric else
                     ["" if x is None else str(x) for x in df[name].to_list()])
    parts: list[tuple[list[int], list[int] | None]] = [(list(range(len(heads))), None)]  # off a terminal: whole
    if out.is_terminal:
        parts = _terminal_layout(heads, cells, right, [df.columns.index(x) for x in drop if x in df.columns])
        if not parts:  # not even the leading columns and one other fit side by side
            if title:
                out.print(title, style="bold", markup=False)
            _print_records(heads, cells)
            return
    for keep, widths in parts:
        table = Table(title=title, title_justify="left", title_style="bold")
        for n, k in enumerate(keep):
            table.add_column(heads[k], justify="right" if right[k] else "left", no_wrap=widths is None,
                             width=None if widths is None else widths[n], overflow="fold")
        for row in zip(*(cells[k] for k in keep)):
            table.add_row(*row)
        if out.is_terminal:
            out.print(table)
        else:  # a pipe or a log: the table's own width, never the terminal's (COLUMNS is ignored)
            SafeConsole(width=100_000, highlight=False, file=out.file).print(table)


def _terminal_layout(heads: list[str], cells: list[list[str]], right: list[bool],
                     drop: list[int]) -> list[tuple[list[int], list[int] | None]]:
    """The tables (columns, widths) that show a table on the terminal, nothing cut: whole
    with its text wrapped, else without the columns *drop* (as few as needed, said on
    stderr), else in turns (:func:`_split_columns`); none when even that does not fit."""
    sizes = [(max(cell_len(x) for x in [h, *col]), max(cell_len(w) for x in [h, *col] for w in x.split() or [""]))
             for h, col in zip(heads, cells)]  # each column's (widest cell, longest word)

    def fit(columns: list[int]) -> list[int] | None:
        return _fit_columns([sizes[c] for c in columns], out.width)

    keep = list(range(len(heads)))
    widths = fit(keep)
    dropped = []
    for column in drop:
        if widths is not None:
            break
        keep.remove(column)
        dropped.append(heads[column])
        widths = fit(keep)
    if widths is None:
        return _split_columns(right, fit)
    if dropped:
        err.print(f"left out for the terminal's width: {', '.join(dropped)} (a pipe, e.g. | less -S, shows every "
                  "column)", markup=False)
    return [(keep, widths)]


def _split_columns(right: list[bool], fit) -> list[tuple[list[int], list[int] | None]]:
    """A table too wide for the terminal as several, each with the leading text columns
    (what names a row: game, variant, ...) and as many of the others as *fit* (columns ->
    widths or None) allows: (columns, widths) of each; none when the leading columns and
    any one other do not fit."""
    lead = list(range(next((k for k, numeric in enumerate(right) if numeric), 0)))
    if not lead:
        return []
    groups: list[list[int]] = [[]]
    for k in range(len(lead), len(right)):
        if groups[-1] and fit(lead + groups[-1] + [k]) is None:
            groups.append([])
        groups[-1].append(k)
        if fit(lead + groups[-1]) is None:
            return []
    return [(lead + group, fit(lead + group)) for group in groups]


def _fit_columns(sizes: list[tuple[int, int]], width: int) -> list[int] | None:
    """Widths of columns of (widest cell, longest word) *sizes* in a table *width* cells
    wide, each at least its longest word (so nothing is cut), the widest shrunk first;
    None when the longest words do not fit.

    >>> [_fit_columns([(6, 6), (7, 3)], width) for width in (80, 16, 15)]
    [[6, 7], [6, 3], None]
    """
    room = width - 1 - 3 * len(sizes)  # a border a column and one more, a space either side of each
    widths = [widest for widest, _ in sizes]
    least = [word for _, word in sizes]
    if sum(least) > room:
        return None
    while sum(widths) > room:
        k = max(range(len(widths)), key=lambda i: (widths[i] > least[i], widths[i]))
        widths[k] -= 1
    return widths


def _print_records(heads: list[str], cells: list[list[str]]) -> None:
    """A table too wide for the terminal, a row at a time: each column's name and value on a line."""
    pad = max(cell_len(h) for h in heads)
    for k, row in enumerate(zip(*cells)):
        if k:
            out.print("", markup=False)
        for head, value in zip(heads, row):
            out.print(f"{head}{' ' * (pad - cell_len(head))}  {value}", markup=False, soft_wrap=True)


def _warn_unaudited(dataset: str) -> None:
    """Say on stderr how many hands the figures leave out because the audit has not seen
    them yet (ingested after the last audit): they were left out without a word. (Counted
    from the part files' footers: no second connection, no table read.)"""
    hands, audited = paipu.dataset_hands(dataset), paipu.audited_hands(dataset)
    if audited < hands:
        err.print(f"{dataset}: {hands - audited:,} of its {human.count(hands, 'hand')} are not audited yet and not in "
                  f"these figures (run 'paipu audit {dataset}')", markup=False, soft_wrap=True)


STAT_HELP = "only these statistics (repeatable): " + ", ".join(paipu.stat_files())


def _variant_or_fail(game: str | None, variant: str | None) -> None:
    """A --variant that no game (or not --game) has is an error naming the known ones."""
    if variant is None:
        return
    if game:
        try:
            paipu.find_rules(game, variant)
        except paipu.UnknownGame as e:
            fail(str(e))
    elif not any(variant in g.variants for g in paipu.games()):
        known = "; ".join(f"{g.name}: {', '.join(g.variants)}" for g in paipu.games())
        fail(f"unknown variant {variant!r} (known: {known})")


@app.command()
def stats(
    dataset: Annotated[str, typer.Argument(help="an audited dataset (paipu ingest, then paipu audit)", callback=place)],
    game: Annotated[str | None, typer.Option("--game", "-g", help="only this game")] = None,
    variant: Annotated[str | None, typer.Option("--variant", help="only this variant")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON for other tools (raw numbers, rates as fractions)")] = False,
    only: Annotated[list[str] | None, typer.Option("--stat", metavar="NAME", help=STAT_HELP)] = None,
) -> None:
    """Balance statistics over the legal hands: bombs, multipliers, win rates (with 95% Wilson intervals), ...

    Tables show rates as per cent and numbers with thousands separators; --json gives the
    raw values. The statistics are described in docs/analysis.md.
    """
    try:
        game = paipu.game_name(game) if game else None
    except paipu.UnknownGame as e:
        fail(str(e))
    _variant_or_fail(game, variant)
    names = only or list(paipu.STATS)
    for name in names:
        if name not in paipu.STATS:
            fail(f"unknown statistic {name!r} (known: {', '.join(paipu.STATS)})")
    try:
        con = paipu.connect(dataset)
    except paipu.DatasetError as e:
        fail(str(e))
    _warn_unaudited(dataset)
    frames = {name: paipu.run_stat(con, name, game, variant) for name in names}
    if as_json:
        sys.stdout.write(dumps({k: df.to_dicts() for k, df in frames.items()}, ensure_ascii=False, indent=1) + "\n")
        return
    for name, df in frames.items():
        if df.height:
            _print_frame(_settings_as_changes(df), name)
    empty = [name for name, df in frames.items() if not df.height]
    if empty and (only or len(empty) == len(frames)):  # (every statistic, asked for or not, said once)
        reasons = {name: paipu.why_empty(con, name, game, variant) for name in empty}
        if len(set(reasons.values())) == 1 and len(empty) > 1 and not only:
            err.print(next(iter(reasons.values())), markup=False)
        else:
            for name, why in reasons.items():
                err.print(f"{name}: no rows: {why}", markup=False)


def _settings_as_changes(df):
    """A table's ``setting`` (the records' params as JSON text) as the rule changes that
    make it, the way --rule and --compare write them (``must_play=false``); blank for
    the variant's own rules. --json keeps the params."""
    import polars as pl

    if not {"game", "variant", "setting"} <= set(df.columns):
        return df
    shown = [paipu.setting_label(g, v, x) if x else "" for g, v, x in df.select("game", "variant", "setting").iter_rows()]
    return df.with_columns(pl.Series("setting", shown, dtype=pl.String))


@app.command()
def hands(
    dataset: Annotated[str, typer.Argument(help="a dataset folder (audited or not)", callback=place)],
    game: Annotated[str | None, typer.Option("--game", "-g", help="only this game")] = None,
    variant: Annotated[str | None, typer.Option("--variant", help="only this variant")] = None,
    player: Annotated[str | None, typer.Option("--player", help="only hands this player sat in (exact name)")] = None,
    code: Annotated[str | None, typer.Option("--code", help="only hands with this verdict code (or ok)")] = None,
    since: Annotated[str | None, typer.Option("--since", help="only hands from this date or time on (ISO 8601)")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="show at most this many")] = 50,
) -> None:
    """List a dataset's hands (id, game, variant, players, time, verdict) to find one to replay."""
    try:
        game = paipu.game_name(game) if game else None
    except paipu.UnknownGame as e:
        fail(str(e))
    _variant_or_fail(game, variant)
    if code is not None and code != "ok" and code not in {c.value for c in paipu.Code}:
        fail(f"unknown verdict code {code!r} (known: ok, {', '.join(c.value for c in paipu.Code)})")
    if since is not None:
        try:
            since = datetime.fromisoformat(since).replace(tzinfo=None).isoformat(sep=" ")
        except ValueError:
            fail(f"--since must be an ISO 8601 date or time such as 2024-05-01 or 2024-05-01T20:00, got {since!r}")
    if limit < 1:
        fail("--limit must be 1 or more")
    try:
        df, total = paipu.find_hands(dataset, game, variant, player, code, since, limit)
    except paipu.DatasetError as e:
        fail(str(e))
    if not total:
        err.print("no hands match", markup=False)
        return
    _print_frame(df, drop=("source", "time", "players", "variant"))
    if total > df.height:
        err.print(f"{human.count(df.height, 'hand')} of {total:,} shown (--limit to see more)", markup=False)


@app.command()
def compare(
    dataset: Annotated[str, typer.Argument(help="an audited dataset with duplicate deals (paipu simulate --compare)",
                                           callback=place)],
    game: Annotated[str | None, typer.Option("--game", "-g", help="only this game")] = None,
    variant: Annotated[str | None, typer.Option("--variant", help="only this variant")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON for other tools")] = False,
) -> None:
    """Rule settings compared on shared deals: paired differences with 95% intervals, and
    which are significant (Holm-corrected over every difference tested)."""
    try:
        game = paipu.game_name(game) if game else None
    except paipu.UnknownGame as e:
        fail(str(e))
    _variant_or_fail(game, variant)
    try:
        result = paipu.compare_settings(dataset, game, variant)
    except (paipu.UnknownGame, paipu.DatasetError) as e:
        fail(str(e))
    if as_json:
        sys.stdout.write(dumps({"differences": result.to_dicts(), "summary": paipu.compare_sentences(result)},
                                    ensure_ascii=False, indent=1) + "\n")
        return
    if result.height == 0:
        out.print("no deal was played under two settings of one variant (make some with paipu simulate --compare)",
                  markup=False)
        return
    group = ["game", "variant", "base", "setting"]
    for (g, v, base, setting), part in paipu.compare_for_people(result).group_by(group, maintain_order=True):
        _print_frame(part.drop(group), f"{g}/{v}: {setting} - {base}, paired differences", drop=("p",),
                     numbers=("base_mean", "setting_mean", "diff", "lo", "hi", "p", "p_holm"))
    for line in paipu.compare_sentences(result):
        out.print(line, markup=False)


@app.command()
def sql(
    dataset: Annotated[str, typer.Argument(help="a dataset folder", callback=place)],
    query: Annotated[str, typer.Argument(help="SQL over the views hands, actions, rejects, verdicts, plays, outcomes, seats")],
    csv: Annotated[bool, typer.Option("--csv", help="CSV on standard output (lists and structs as JSON text)")] = False,
    parquet: Annotated[str | None, typer.Option("--parquet", help="write the result to this Parquet file")] = None,
    safe: Annotated[bool, typer.Option("--safe", help="the query may read the dataset's views only: no other "
                                                      "file, no writing, no extensions (for use behind a service), "
                                                      "within --memory, --timeout and --max-rows")] = False,
    memory: Annotated[str, typer.Option("--memory", help="with --safe: DuckDB's memory limit")] = "1GB",
    timeout: Annotated[float, typer.Option("--timeout", help="with --safe: seconds the query may run")] = 30.0,
    max_rows: Annotated[int, typer.Option("--max-rows", help="with --safe: rows the result may have")] = 1_000_000,
) -> None:
    """Run local ad-hoc SQL (DuckDB) with the dataset's tables as named views.

    The query runs with your rights: without --safe, DuckDB can read and write any file
    you can (read_csv, COPY ... TO, ATTACH, extensions). Never pass other people's SQL
    without --safe.
    """
    if timeout <= 0 or max_rows < 1:
        fail("--timeout must be more than 0 and --max-rows 1 or more")
    if parquet:
        if paipu.is_uri(parquet):
            fail(f"--parquet {parquet}: writes a local file, not to a URI; give a path")
        writable_file(parquet, "--parquet")
        if csv:
            fail("--csv and --parquet: choose one (--parquet writes the file, --csv standard output)")
        if not paipu.is_uri(dataset) and inside(parquet, dataset):
            fail(f"--parquet {parquet} is inside the dataset {dataset}: a file there would be read as part "
                 f"of its tables; write it outside")
    try:
        df = paipu.sql_query(dataset, query, safe=safe, memory=memory, timeout=timeout, max_rows=max_rows)
    except (paipu.DatasetError, paipu.QueryError) as e:  # DuckDB's own errors too ("query failed: ...")
        fail(str(e))
    try:
        if parquet:
            paipu.write_parquet(df, parquet)  # the old file or the new one
            err.print(f"wrote {human.count(df.height, 'row')} to {parquet}", markup=False)
        elif csv:
            sys.stdout.write(paipu.csv_text(df))
        else:
            _print_frame(df)
    except OSError as e:
        os_fail(e, parquet or "standard output")
    except paipu.QueryError as e:  # polars wraps the OS error of a write (a full disk)
        fail(str(e))


@app.command()
def fraud(
    dataset: Annotated[str, typer.Argument(help="a dataset (paipu ingest); audited with decisions when needed",
                                           callback=place)],
    game: Annotated[str | None, typer.Option("--game", "-g", help="only this game")] = None,
    min_hands: Annotated[int, typer.Option("--min-hands", help="screen only players with at least this many hands")] = 100,
    alpha: Annotated[float, typer.Option("--fdr", help="false discovery rate: flag suspects with q at most this")] = 0.01,
    top: Annotated[int, typer.Option("--top", help="also list this many of the best-ranked suspects not flagged")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="JSON for other tools")] = False,
    ray: Annotated[str | None, typer.Option(
        "--ray", metavar="[ADDRESS]",
        help="compute the per-hand decisions on a Ray cluster (as paipu audit --ray)")] = None,
) -> None:
    """Rank suspects of collusion, chip dumping and bot play (docs/fraud.md).

    Writes the players (profiles) and suspects tables beside the others."""
    try:
        game = paipu.game_name(game) if game else None
    except paipu.UnknownGame as e:
        fail(str(e))
    if not paipu.is_dataset(dataset):
        no_hands(dataset, "screen")
        fail(f"{dataset}: not a paipu dataset (no hands/ folder); make one with 'paipu ingest'")
    if min_hands < 1:
        fail("--min-hands must be 1 or more")
    if not 0 < alpha < 1:
        fail("--fdr must be between 0 and 1")
    if top < 0:
        fail(f"--top must be 0 or more, got {top}")
    try:
        cut = CutHands()
        done = paipu.audit_dataset(dataset, decisions=True, ray_address=ray, on_part=cut.add)
        if done:
            err.print(f"{dataset}: audited {done} part files with decisions", markup=False)
        cut.warn(dataset)
        result = paipu.fraud_screen(dataset, game, min_hands=min_hands, alpha=alpha)
        paipu.write_fraud_tables(dataset, result, game)
    except (paipu.DatasetError, paipu.DatasetLocked, paipu.DatasetWriteError, paipu.ClusterError) as e:
        fail(str(e))
    if as_json:
        sys.stdout.write(dumps(result.to_json(top), ensure_ascii=False, indent=1) + "\n")
        return
    flagged = result.flagged
    shown, watched = result.listed(top)
    out.print(f"{len(flagged)} suspects flagged among {len(result.tests)} tests of {result.players.height} "
              f"player profiles (false discovery rate {f'{alpha:.12f}'.rstrip('0')})", markup=False)
    for k, t in shown:
        for line in paipu.suspect_lines(k, t, alpha):
            out.print(line, markup=False, soft_wrap=True)
    if watched:
        out.print(f"watch list: {len(watched)} not flagged, with q at most {paipu.WATCH_Q} or p at most 1 / the tests run "
                  "(docs/fraud.md)", markup=False)
        for k, t in watched:  # (numbered by rank: the suspects table's and --json's)
            for line in paipu.watch_lines(k, t):
                out.print(line, markup=False, soft_wrap=True)


@app.command()
def review(
    source: Annotated[str, typer.Argument(help="a record file (any format), a folder or a dataset", callback=place)],
    hand: Annotated[str | None, typer.Option("--hand", help="the hand id to review (without it a dataset is reviewed whole)")] = None,
    seat: Annotated[int | None, typer.Option("--seat", help="review only this seat's decisions")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="the review as JSON on standard output")] = False,
    html_out: Annotated[str | None, typer.Option("--html", help="write the hand's replayer page with the review")] = None,
    lang: Annotated[str, typer.Option("--lang", help="en or zh")] = "en",
    seed: Annotated[int, typer.Option("--seed", "-s", help="random seed of the evaluator")] = 0,
    samples: Annotated[int, typer.Option("--samples", help="deals of the hidden cards per decision at most")] = 64,
    budget: Annotated[float, typer.Option("--budget", help="milliseconds per decision (0: none, exactly --samples deals)")] = 50.0,
    sample: Annotated[int | None, typer.Option("--sample", help="a dataset: review only this many hands, a sample fixed by --seed")] = None,
    workers: Annotated[int | None, typer.Option(help="a dataset: processes (default: all cores)")] = None,
    ray: Annotated[str | None, typer.Option(
        "--ray", metavar="[ADDRESS]", help="a dataset: review on a Ray cluster: auto, ray://HOST:PORT, or alone for a local one")] = None,
) -> None:
    """Review every decision of a hand against paipu's bots: each option's value, the loss
    of the option played, mistakes and blunders (docs/review.md).

    Without --hand, a dataset's hands (or a --sample) are reviewed into its reviews table
    and the rating columns of its players table; a rerun goes on with the hands not
    reviewed yet."""
    if hand is None and paipu.is_dataset(source):
        _review_dataset(source, sample, seed, samples, budget, workers, ray)
        return
    if hand is None and not paipu.is_uri(source) and not os.path.exists(source):
        fail(f"{source}: no such file or folder")  # (as with --hand: not a missing option)
    if hand is None:
        no_hands(source, "review")
    if hand is None:
        fail("give the hand to review with --hand ID (or a dataset, to review its hands)")
    if sample is not None or workers is not None or ray is not None:
        fail("--sample, --workers and --ray review a dataset: leave out --hand")
    _review_hand(source, hand, seat, json_out, html_out, lang, seed, samples, budget)


def _check_review_settings(samples: int, budget: float) -> None:
    """review's --samples and --budget, for a hand and for a dataset alike."""
    if samples < 2 or not 0 <= budget < float("inf"):  # (NaN is neither)
        fail("--samples must be 2 or more and --budget 0 or more")


def _review_hand(source: str, hand: str, seat: int | None, json_out: bool, html_out: str | None, lang: str,
                 seed: int, samples: int, budget: float) -> None:
    """``paipu review INPUT --hand ID``: one hand reviewed (paipu.review_hand), shown or written."""
    if lang not in ("en", "zh"):
        fail(f"--lang must be en or zh, got {lang!r}")
    _check_review_settings(samples, budget)
    if html_out is not None:
        writable_file(html_out, "--html")
    try:
        record = paipu.find_records(source, [hand], first=True).get(hand)
    except paipu.InputError as e:
        fail(str(e))
    if record is None:
        fail(f"no hand {hand!r} in {source}" + _nearest(source, hand))
    if seat is not None and not 0 <= seat < len(record["players"]):
        fail(f"--seat must be 0..{len(record['players']) - 1}")
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn  # deferred: rich.progress costs 25 ms at startup

    previous = paipu.previous_hand(source, record)  # a later hand of a Guandan match: the hand before it, as the audit chains them

    budget_ms = budget or None  # 0: exactly --samples deals
    progress = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                        TimeRemainingColumn(), console=err, disable=not err.is_terminal, transient=True)
    task = progress.add_task("decisions", total=None)
    try:
        with progress:
            result = paipu.review_hand(record, seats=None if seat is None else [seat], samples=samples,
                                       budget_ms=budget_ms, seed=seed, previous=previous,
                                       on_decision=lambda k, n: progress.update(task, completed=k, total=n))
    except ValueError as e:  # a hand the engine cannot set up (unknown game, bad deal)
        fail(f"{source}: hand {hand!r}: {e}")
    if html_out is not None:
        try:
            paipu.write_page(record, html_out, lang, review=result)
        except OSError as e:
            fail(f"{html_out}: cannot write: {e.strerror}")
        err.print(f"wrote {html_out}", markup=False)
    if json_out:
        sys.stdout.write(dumps(result.to_json(), ensure_ascii=False) + "\n")
    elif html_out is None:
        # laid out for the terminal's width (40 columns and up); a pipe gets whole lines, 80 wide
        for line in paipu.review_lines(result, lang, out.width if out.is_terminal else 80, samples=samples,
                                 budget_ms=budget_ms, seed=seed):
            out.print(line, soft_wrap=not out.is_terminal)
    v = paipu.replay_hand(record, previous=previous).violation
    if v is not None and v.code != "incomplete":  # (a hand cut short is reviewed as far as it goes)
        where = "" if v.action is None else f" at action {v.action}"
        err.print(f"{source}: hand {hand!r} breaks a rule{where} ({v.code}): the decisions after it are not reviewed",
                  markup=False)
        raise typer.Exit(1)


def _review_dataset(dataset: str, sample: int | None, seed: int, samples: int, budget: float, workers: int | None,
                    ray: str | None) -> None:
    """``paipu review DS``: the dataset pass (paipu.review_dataset), then the players' rating."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn  # deferred: rich.progress costs 25 ms at startup

    if sample is not None and sample < 1:
        fail(f"--sample must be 1 or more, got {sample}")
    _check_review_settings(samples, budget)
    progress = Progress("[progress.description]{task.description}", BarColumn(), MofNCompleteColumn(),
                        TimeRemainingColumn(), console=err, disable=not err.is_terminal, transient=True)
    selected = kept = 0
    task = progress.add_task("review", total=None)

    def start(chosen: int, left: int) -> None:
        nonlocal selected
        selected = chosen
        progress.update(task, total=left)

    def chunk(s) -> None:
        nonlocal kept
        kept += s.hands
        progress.advance(task, s.hands)

    try:
        with progress:
            done = paipu.review_dataset(dataset, paipu.ReviewSettings(samples, budget or None, seed), sample,
                                        capped_workers(workers), ray, on_chunk=chunk, on_start=start)
        players = paipu.update_players(dataset)
    except (paipu.DatasetError, paipu.DatasetLocked, paipu.DatasetWriteError, paipu.ClusterError) as e:
        fail(str(e))
    except KeyboardInterrupt:  # (Ctrl-C: exit 130 without a word before)
        err.print(f"{dataset}: interrupted; the {human.count(kept, 'hand')} reviewed are kept, and the same command "
                  "goes on from there", markup=False, soft_wrap=True)
        raise typer.Exit(130) from None
    err.print(f"{dataset}: reviewed {human.count(done.hands, 'hand')} ({done.decisions:,} decisions) of the "
              f"{selected:,} {'sampled' if sample is not None else 'in the dataset'}; "
              f"{human.count(selected - done.hands, 'was', 'were')} reviewed already", markup=False)
    _print_frame(paipu.rating_table(players), "rating (loss in points of win probability; docs/review.md)")


@app.command()
def report(
    dataset: Annotated[str, typer.Argument(help="an audited dataset", callback=place)],
    output: Annotated[str, typer.Option("--out", "-o", help="the HTML file to write ('-': standard output)")] = "report.html",
    game: Annotated[str | None, typer.Option("--game", "-g", help="only this game")] = None,
    lang: Annotated[str, typer.Option("--lang", help="en or zh")] = "en",
    replays: Annotated[str | None, typer.Option("--replays", help="a folder of 'paipu replay --hands' pages: the suspects' hands that have a page there link to it")] = None,
) -> None:
    """A self-contained HTML balance report for designers, with charts."""
    if lang not in ("en", "zh"):
        fail(f"--lang must be en or zh, got {lang!r}")
    if output != "-":
        writable_file(output, "--out", stdout="--out -")
    try:
        game = paipu.game_name(game) if game else None
        if output == "-":
            doc, sections = paipu.report_html(dataset, output, game=game, lang=lang, replays=replays)
            sys.stdout.write(doc)
            sys.stdout.flush()
            _warn_unaudited(dataset)  # (on stderr: the page on stdout stays whole)
            return
        sections = paipu.write_report(dataset, output, game=game, lang=lang, replays=replays)
        _warn_unaudited(dataset)
    except (paipu.DatasetError, paipu.UnknownGame) as e:
        fail(str(e))
    except BrokenPipeError:  # the reader of standard output is gone (| head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(0) from None
    except OSError as e:
        os_fail(e, "standard output" if output == "-" else output)
    err.print(f"wrote {output} ({human.count(sections, 'section')})", markup=False)


def main() -> None:  # pragma: no cover - console entry point alias
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
