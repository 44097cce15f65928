package audit

// SessionID lets the external tests, which register the real clients,
// read a transcript's session id by its client's layout.
var SessionID = sessionID
