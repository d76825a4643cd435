// Filled in by the Coordinator work.
