"""The error every layer raises for data, costs or parameters that cannot give a valid result;
the command line reports it as one line and exits with status 2."""


class DataError(ValueError):
    """Data or costs that cannot give a valid result."""
