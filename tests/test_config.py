import copy

import pytest
import yaml

from costfs.study.config import ConfigError, check_config
from tests.conftest import REPO

SCHEMA = yaml.safe_load((REPO / "workflow" / "schemas" / "config.schema.yaml").read_text())
TINY = yaml.safe_load((REPO / "config" / "tiny.yaml").read_text())


@pytest.mark.parametrize("name", ["config.yaml", "paper.yaml", "reproduction.yaml", "tiny.yaml"])
def test_shipped_configs_are_valid(name):
    check_config(yaml.safe_load((REPO / "config" / name).read_text()), SCHEMA)


def changed(path: str, value):
    config = copy.deepcopy(TINY)
    *parents, last = path.split(".")
    node = config
    for parent in parents:
        node = node[parent]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return config


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("n_reps", 3, "unknown config key 'n_reps' at the top level; allowed: seed, n_rep"),
        ("n_rep", "three", "config key n_rep: 'three' is not of type 'integer'"),
        ("n_rep", 0, "config key n_rep: 0 is less than the minimum of 1"),
        ("seed", KeyError, "'seed' is a required property"),
        ("engine", "fast", "config key engine: 'fast' is not allowed; allowed values: auto"),
        ("simulation.budgets", [], "config key simulation.budgets: [] should be non-empty"),
        ("simulation.budgets", [-1, 3], "simulation.budgets[0]: -1 is less than or equal"),
        ("simulation.settings", ["E"], "simulation.settings[0]: 'E' is not allowed; allowed"),
        ("xi_grid", [-0.5, 1], "config key xi_grid[0]: -0.5 is less than the minimum of 0"),
        # YAML's .nan and .inf parse as floats; no key takes them
        ("xi_grid", [0, float("nan")], "config key xi_grid[1]: nan is not a finite number"),
        ("simulation.budgets", [float("inf")], "simulation.budgets[0]: inf is not a finite"),
        (
            "methods.pfx",
            {},
            "unknown config key 'pfx' under methods; allowed: auc, boruta, budget_rf",
        ),
        ("methods.pfi", {"trees": 5}, "unknown config key 'trees' under methods.pfi"),
        ("strategies", ["best"], "config key strategies[0]: 'best' is not allowed"),
        ("real_data.datasets.wdbc.budgets", [0], "real_data.datasets.wdbc.budgets[0]: 0 is less"),
    ],
)
def test_config_errors_name_key_and_allowed_values(path, value, message):
    with pytest.raises(ConfigError) as error:
        check_config(changed(path, value), SCHEMA)
    assert message in str(error.value)
    assert "\n" not in str(error.value)
