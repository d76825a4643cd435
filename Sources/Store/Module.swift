// Filled in by the Store work.
