"""The Random Forest engine: forests (scikit-learn or scikit-learn-intelex, `forest`), trees on
explicit bootstrap samples (`trees`, with the compiled kernels of `cart`) and feature
importances (`importance`). Knows nothing of costs or methods."""
