"""The compute engine: Random Forests (scikit-learn or scikit-learn-intelex, `forest`), trees
on explicit bootstrap samples (`trees`, with the compiled kernels of `cart`), feature
importances (`importance`) and the compiled walk of a fill order over every budget (`fill`).
Knows nothing of methods; of costs, only what `costfs.core.costs` defines."""
