// Package trusttest makes files as another user, for the tests of what
// compact-guard trusts when it reads back (specs/security.md SEC-13 to
// SEC-19): a test running as root creates each forged artefact as uid
// 4242, through os/exec with SysProcAttr.Credential, as another local user
// would. On other systems, and when not root, the tests that need it skip
// and say why.
package trusttest
