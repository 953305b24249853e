"""The ground floor: feature costs with shared-cost groups, checks of user data that name the
offending column or value, seeds, progress bars and optional imports. Imports nothing else of
costfs."""
