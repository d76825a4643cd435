// Filled in by the Certificates work.
