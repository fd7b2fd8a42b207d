package pdf

// Internals the tests of package pdf_test use.
var (
	// ReadPdftotext runs pdftotext alone, with no fallback.
	ReadPdftotext = readPdftotext
	// ErrMemoryLimit is the cause of a pdftotext that ran out of memory.
	ErrMemoryLimit = errMemoryLimit
)

// MemoryBounded reports whether Options.MaxMemoryBytes is enforced here.
const MemoryBounded = memoryBounded
