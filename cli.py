"""paipu's command line: thin — parse options, call replay/analysis, render with rich.

Exit codes: 0 clean, 1 violations found, 2 bad input or usage.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated, Optional

import typer
from rich.console import Console

app = typer.Typer(
    name="paipu",
    help="Replay, audit and analyse hands of Dou Dizhu, Paodekuai, Guandan and Shuangkou.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
err = Console(stderr=True, highlight=False)
out = Console(highlight=False)


def fail(message: str, code: int = 2) -> None:
    err.print(f"[bold red]error:[/] {message}", markup=True, soft_wrap=True)
    raise typer.Exit(code)


@app.command()
def ingest(
    inputs: Annotated[list[str], typer.Argument(help="files, folders or globs (JSONL or text, optionally .gz)")],
    out_dir: Annotated[str, typer.Option("--out", "-o", help="dataset folder (created or added to)")],
    fmt: Annotated[str, typer.Option("--format", help="auto, jsonl or text")] = "auto",
    batch: Annotated[int, typer.Option(help="hands per part file (bounds memory)")] = 20_000,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="no per-reject lines")] = False,
) -> None:
    """Read hand histories into a Parquet dataset (hands, actions, rejects)."""
    from replay.ingest import ingest as run_ingest
    from replay.io.readers import iter_file
    from replay.io.sources import InputError, expand_inputs

    try:
        files = expand_inputs(inputs)
    except InputError as e:
        fail(str(e))
    if not files:
        fail("no input files found (paipu reads .jsonl, .ndjson, .json, .paipu and .txt, also gzipped)")

    def on_reject(item) -> None:
        if not quiet:
            err.print(f"{item.where}: {item.code}: {item.message}", markup=False, soft_wrap=True)

    def items():
        for path in files:
            yield from iter_file(path, fmt)
            progress.advance(task, os.path.getsize(path))

    from rich.progress import BarColumn, DownloadColumn, Progress, TimeRemainingColumn

    progress = Progress("[progress.description]{task.description}", BarColumn(), DownloadColumn(),
                        TimeRemainingColumn(), console=err, disable=not err.is_terminal, transient=True)
    with progress:
        task = progress.add_task("ingest", total=sum(os.path.getsize(p) for p in files))
        try:
            stats = run_ingest(items(), out_dir, batch_size=batch, on_reject=on_reject)
        except ValueError as e:
            fail(str(e))
    codes = ", ".join(f"{k} {v}" for k, v in sorted(stats.by_code.items()))
    out.print(
        f"ingested {stats.written} hands from {len(files)} files into {out_dir}; "
        f"{stats.duplicates} already there, {stats.rejected} rejected" + (f" ({codes})" if codes else ""),
        markup=False,
    )


@app.command()
def convert(
    inputs: Annotated[list[str], typer.Argument(help="files, folders or globs")],
    to: Annotated[str, typer.Option("--to", help="jsonl or text")],
    output: Annotated[Optional[str], typer.Option("--out", "-o", help="output file (default: standard output)")] = None,
    fmt: Annotated[str, typer.Option("--format", help="input format: auto, jsonl or text")] = "auto",
) -> None:
    """Convert hand records between JSONL and the paipu text format (lossless)."""
    from replay.io.jsonl import record_to_json
    from replay.io.readers import iter_file
    from replay.io.sources import InputError, expand_inputs
    from replay.io.text import record_to_text

    if to not in ("jsonl", "text"):
        fail(f"--to must be jsonl or text, got {to!r}")
    try:
        files = expand_inputs(inputs)
    except InputError as e:
        fail(str(e))
    bad = 0
    chunks: list[bytes] = []
    for path in files:
        for item in iter_file(path, fmt):
            if item.record is None:
                bad += 1
                err.print(f"{item.where}: {item.code}: {item.message}", markup=False, soft_wrap=True)
                continue
            if to == "jsonl":
                chunks.append(record_to_json(item.record) + b"\n")
            else:
                chunks.append((("\n" if chunks else "") + record_to_text(item.record)).encode())
    data = b"".join(chunks)
    if output:
        import gzip

        with (gzip.open if output.endswith(".gz") else open)(output, "wb") as f:
            f.write(data)
    else:
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    if bad:
        raise typer.Exit(1)


def main() -> None:  # pragma: no cover - console entry point alias
    app()


if __name__ == "__main__":  # pragma: no cover
    app()
