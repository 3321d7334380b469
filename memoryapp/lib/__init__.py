"""Small helpers that know no model and no database: the text vocabulary every layer shares, and the
typed readers of settings from the environment."""
