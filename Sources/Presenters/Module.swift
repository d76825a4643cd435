// Filled in by the Presenters work.
