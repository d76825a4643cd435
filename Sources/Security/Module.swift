// Filled in by the Security work.
