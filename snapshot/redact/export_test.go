package redact

// What the tests of record_test.go share with the package's own tests: they
// run outside the package (package redact_test) because they redact through
// snapshot.RedactRecord, and snapshot imports redact.

const (
	FakeAlnum  = fakeAlnum
	FakeBase32 = fakeBase32
	FakeB64URL = fakeB64URL
)

// HeldOutCase is one case of the held-out corpus.
type HeldOutCase = heldOutCase

var (
	FakeTokenBody       = fakeTokenBody
	FakeToken           = fakeToken
	LeakedOutside       = leakedOutside
	LeakedPart          = leakedPart
	EachString          = eachString
	LoadGitleaksSamples = loadGitleaksSamples
	OwnSamples          = ownSamples
	MarkerRE            = markerRE
	HeldOutCorpus       = heldOutCorpus
	HeldOutNearMisses   = heldOutNearMisses
)

// Kind, Text and Secret are a held-out case's fields.
func (c heldOutCase) Kind() string   { return c.kind }
func (c heldOutCase) Text() string   { return c.text }
func (c heldOutCase) Secret() string { return c.secret }
