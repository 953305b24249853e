"""`costfs run-study STUDY.yaml`: the packaged workflow on a study config, in the config's own
folder (its `results/`, `logs/` and report beside the config, and paths in the config read
from there), without knowing Snakemake."""

import logging
import subprocess
from pathlib import Path

import costfs
from costfs.cli.arguments import add_command, positive_integer
from costfs.cli.run_snakemake import snakemake_command
from costfs.core.errors import DataError

log = logging.getLogger("costfs")

STUDY_MARK = Path("results") / ".study"
"""Inside a study's folder: the path of the config whose results the folder holds."""


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


def claim_folder(study: Path) -> None:
    """Mark the study's folder as this study's, or refuse one that holds another's results:
    two studies in one folder would overwrite each other's results."""
    mark = study.parent / STUDY_MARK
    if mark.is_file():
        owner = mark.read_text().strip()
        if owner != str(study):
            raise DataError(
                f"{study.parent / 'results'} holds the results of {owner}: give each study its "
                f"own folder (move {study.name} to a new folder)"
            )
    elif (study.parent / "results").exists():
        raise DataError(
            f"{study.parent / 'results'} holds results that are not {study.name}'s (the "
            "default study's, or a study run with snakemake): give each study its own folder"
        )
    else:
        mark.parent.mkdir(parents=True, exist_ok=True)
        mark.write_text(f"{study}\n")


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


def run_study(args) -> None:
    study = Path(args.study).resolve()
    if not study.is_file():
        raise DataError(f"{args.study}: no such study file (write one with costfs init-study)")
    check_yaml(study)
    claim_folder(study)
    options = ["--cores", str(args.cores)]
    if args.profile:
        options += ["--profile", profile_folder(args.profile)]
    log.info("running %s in %s", study.name, study.parent)
    if subprocess.run(study_command(study, options + args.passed_on)).returncode:
        raise DataError(f"{study.name}: the workflow failed; its logs are in {study.parent}/logs")
    log.info("results in %s", study.parent / "results")
    if args.report:
        report = study.parent / "report.html"
        if subprocess.run(study_command(study, ["--report", str(report)])).returncode:
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
        help="run a study in its config's folder (results, logs and report beside the config); "
        "arguments after -- go to Snakemake",
    ).set_defaults(passed_on=[])
