"""`costfs run-study STUDY.yaml`: the packaged workflow on a study config, in the config's own
folder (its `results/`, `logs/` and report beside the config, and paths in the config read
from there), without knowing Snakemake."""

import contextlib
import ctypes
import fcntl
import hashlib
import logging
import os
import signal
import subprocess
from pathlib import Path

import costfs
from costfs.cli import storage
from costfs.cli.arguments import (
    NORMAL,
    QUIET,
    VERBOSE,
    VERBOSITY,
    add_command,
    positive_integer,
)
from costfs.cli.run_snakemake import snakemake_command
from costfs.core.errors import DataError

log = logging.getLogger("costfs.cli")

STUDY_MARK = Path("results") / ".study"
"""Inside a study's folder: which study its results are of (`claim_folder`)."""
RUN_LOCK = Path(".snakemake") / "run-study.lock"
"""Inside a study's folder: held (flock) by the run-study that runs it and by its Snakemake,
with the run-study's process id in it."""
SNAKEMAKE_VERBOSITY = {
    QUIET: ["--quiet", "host", "progress", "reason", "rules"],
    NORMAL: ["--quiet", "host", "reason", "rules"],
    VERBOSE: [],
}
"""Snakemake's options for run-study's verbosity: by default its progress lines, not a block
per job."""
PR_SET_PDEATHSIG = 1
"""Linux's prctl option: a signal the process gets when its parent dies."""


def packaged_snakefile() -> Path:
    """The workflow's Snakefile: inside the installed package, or in the repository of an
    editable install."""
    package = Path(costfs.__file__).resolve().parent
    for candidate in (package / "workflow", package.parents[1] / "workflow"):
        if (candidate / "Snakefile").is_file():
            return candidate / "Snakefile"
    raise DataError(
        f"the costfs workflow is not in {package}: install costfs with its workflow extra "
        "(pip install 'costfs[workflow]')"
    )


def study_fingerprint(study: Path) -> str:
    """A hash of the study's config and of the files it reads (each data set's data and costs
    file, by their paths in the config): equal for a study folder moved or copied whole."""
    import yaml

    def mapping(value) -> dict:
        # The config is not checked yet: a half-written one hashes as far as it goes.
        return value if isinstance(value, dict) else {}

    real = mapping(mapping(yaml.safe_load(study.read_text())).get("real_data"))
    data_dir = real.get("data_dir")
    inputs = []
    for name, settings in sorted(mapping(real.get("datasets")).items(), key=str):
        settings = mapping(settings)
        named = [settings.get("path"), settings.get("costs")]
        if data_dir:
            named += [f"{data_dir}/{name}.csv", f"{data_dir}/{name}.csv.gz"]
        inputs += [str(path) for path in named if path]
    digest = hashlib.sha256(study.read_bytes())
    for path in inputs:
        file = study.parent / path
        if file.is_file():
            digest.update(f"\0{path}\0".encode())
            digest.update(hashlib.sha256(file.read_bytes()).digest())
    return digest.hexdigest()


def claim_folder(study: Path) -> None:
    """Mark the study's folder as this study's, or refuse one that holds another's results:
    two studies in one folder would overwrite each other's results.

    The results are this study's when the mark names this config (the config edited in place:
    the workflow reruns what the edit changed) or when the config and the files it reads are
    those the results were run from (the folder moved or copied whole)."""
    mark = study.parent / STUDY_MARK
    fingerprint = study_fingerprint(study)
    if mark.is_file():
        owner, _, owner_fingerprint = mark.read_text().strip().partition("\n")
        if owner != str(study):
            if owner_fingerprint != fingerprint:
                raise DataError(
                    f"{study.parent / 'results'} holds the results of {owner}, whose config or "
                    f"data differ from {study.name}'s: give each study its own folder (if it "
                    f"is the same study, moved and then edited, delete {mark} to take its "
                    "results over)"
                )
            log.info("%s: the results of %s, moved here", study.name, owner)
    elif (study.parent / "results").exists():
        raise DataError(
            f"{study.parent / 'results'} holds results that are not {study.name}'s (the "
            "default study's, or a study run with snakemake): give each study its own folder"
        )
    mark.parent.mkdir(parents=True, exist_ok=True)
    storage.write_text(mark, f"{study}\n{fingerprint}\n")


def profile_folder(profile: str) -> str:
    """A profile folder as given, or one shipped with the workflow by name (`slurm`)."""
    if Path(profile).exists():
        return profile
    profiles = packaged_snakefile().parent / "profiles"
    if (profiles / profile).is_dir():
        return str(profiles / profile)
    names = sorted(path.name for path in profiles.iterdir())
    raise DataError(f"--profile {profile}: no such folder, nor a shipped profile ({names})")


def check_yaml(study: Path) -> None:
    """Raises `DataError` where `study` is not plain YAML (Snakemake would then try it as JSON
    and report a JSON error): a syntax error, or a tag such as !!python/object, which a config
    never needs."""
    import yaml

    try:
        yaml.safe_load(study.read_text())
    except yaml.YAMLError as error:
        problem = " ".join(str(error).split())
        raise DataError(f"{study}: not a valid YAML study config ({problem})") from None


def study_command(study: Path, snakemake_arguments: list[str]) -> list[str]:
    return snakemake_command(
        packaged_snakefile(), study.parent, "--configfile", str(study), *snakemake_arguments
    )


@contextlib.contextmanager
def study_lock(folder: Path):
    """Holds `RUN_LOCK` of the study's `folder` (its file descriptor, for Snakemake to hold
    too), or raises `DataError` naming the run that holds it. The lock ends with the last
    process holding it, however it ends, so a lock of Snakemake's in a folder whose run lock
    is free is stale."""
    path = folder / RUN_LOCK
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(descriptor, 64, 0).decode().strip()
            if holder.isdigit() and _alive(int(holder)):
                raise DataError(
                    f"{folder}: another run-study (process {holder}) runs this study; wait "
                    "for it, or stop it first"
                ) from None
            # Its run-study is gone: the Snakemake it started is ending (`STOP_SNAKEMAKE`).
            log.info("waiting for the Snakemake of a stopped run-study to end")
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
        yield descriptor
    finally:
        os.close(descriptor)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


STOP_SNAKEMAKE = signal.SIGINT
"""The signal that stops Snakemake. Not SIGTERM: Snakemake's SIGTERM handler takes its
scheduler's lock, so a SIGTERM that arrives while the scheduler holds it (selecting jobs)
never returns; SIGINT ends Snakemake as Ctrl-C does, its jobs ended and cleaned up."""


def _die_with_parent() -> None:
    # In the child before it runs Snakemake: stopped when run-study dies, even by kill -9, so
    # that no Snakemake goes on without the run-study that owns the folder.
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, STOP_SNAKEMAKE)


def run_owned(command: list[str], lock: int) -> int:
    """`command` (Snakemake) in a session of its own, holding `lock` too; run-study's SIGINT
    (Ctrl-C) and SIGTERM are passed on to it once, as `STOP_SNAKEMAKE`, and waited for, so
    that Snakemake ends its jobs and cleans up. Its exit status, or the received signal's
    negative number."""
    process = subprocess.Popen(
        command, pass_fds=(lock,), start_new_session=True, preexec_fn=_die_with_parent
    )
    received = []

    def pass_on(number, frame):
        if not received:
            received.append(number)
            log.warning("stopping Snakemake (%s); it ends its jobs first", signal.strsignal(number))
            process.send_signal(STOP_SNAKEMAKE)

    previous = {
        number: signal.signal(number, pass_on) for number in (signal.SIGINT, signal.SIGTERM)
    }
    try:
        returncode = process.wait()
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
    return -received[0] if received else returncode


def run_study(args) -> None:
    study = Path(args.study).resolve()
    if not study.is_file():
        raise DataError(f"{args.study}: no such study file (write one with costfs init-study)")
    check_yaml(study)
    claim_folder(study)
    options = ["--cores", str(args.cores), *SNAKEMAKE_VERBOSITY[args.verbosity]]
    if args.profile:
        options += ["--profile", profile_folder(args.profile)]
    with study_lock(study.parent) as lock:
        # Nothing else runs this study: a lock Snakemake left is stale, and outputs it did not
        # finish are rebuilt.
        locks = study.parent / ".snakemake" / "locks"
        if locks.is_dir() and any(locks.iterdir()):
            log.info("clearing the lock an interrupted run left")
            if run_owned(study_command(study, ["--unlock"]), lock):
                raise DataError(f"{study.name}: Snakemake's stale lock could not be cleared")
        log.info("running %s in %s", study.name, study.parent)
        command = study_command(study, [*options, "--rerun-incomplete", *args.passed_on])
        returncode = run_owned(command, lock)
        if returncode < 0:
            raise DataError(
                f"{study.name}: stopped ({signal.strsignal(-returncode)}); the same command "
                "resumes it"
            )
        if returncode:
            raise DataError(
                f"{study.name}: the workflow failed; its logs are in {study.parent}/logs"
            )
        log.info("results in %s", study.parent / "results")
        if args.report:
            report = study.parent / "report.html"
            if run_owned(study_command(study, ["--report", str(report)]), lock):
                raise DataError(f"{study.name}: the report could not be written")
            log.info("report in %s", report)


def register(commands) -> None:
    add_command(
        commands,
        "run-study",
        run_study,
        (["study"], {"help": "the study config (costfs init-study writes one)"}),
        (["--cores"], {"type": positive_integer, "default": 1, "help": "cores to use (default 1)"}),
        (
            ["--profile"],
            {"help": "a Snakemake profile folder, or slurm: the one shipped with the workflow"},
        ),
        (["--report"], {"action": "store_true", "help": "also write report.html"}),
        *VERBOSITY,
        help="run a study in its config's folder (results, logs and report beside the config); "
        "arguments after -- go to Snakemake",
    ).set_defaults(passed_on=[])
