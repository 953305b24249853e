"""costfs: cost-constrained feature selection for Random Forests.

Every method file under `costfs/methods/` provides a scikit-learn selector, reachable here by
its name (`costfs.AUCFilter`, `costfs.ShallowTreeSelector`, ...). The selectors are imported on
first use, so that the workflow's light jobs (data, costs, aggregation) start without loading
scikit-learn. `costfs.cost_accuracy_curve` scores a selector's choice at each budget on
held-out data (`costfs.study.assessment`).
"""

import importlib

__version__ = "0.1.0"


def _selectors() -> dict[str, type]:
    from costfs.methods import all_methods

    return {
        method.selector_name: getattr(
            importlib.import_module(type(method).__module__), method.selector_name
        )
        for method in all_methods()
    }


def __getattr__(name: str):
    if name == "__all__":
        return sorted([*_selectors(), "cost_accuracy_curve"])
    if name == "cost_accuracy_curve":
        from costfs.study.assessment import cost_accuracy_curve

        return cost_accuracy_curve
    if not name.startswith("_"):
        selectors = _selectors()
        if name in selectors:
            return selectors[name]
    raise AttributeError(f"module 'costfs' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_selectors(), "cost_accuracy_curve"])
