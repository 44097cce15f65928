package snapshot

import (
	"io/fs"

	"golang.org/x/sys/windows"
)

// pathOwnedByMe reports whether this user owns the file, as git for Windows
// decides it: the owner is the user, or the Administrators group when the
// user is an administrator.
func pathOwnedByMe(path string, _ fs.FileInfo) bool {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	if err != nil {
		return false
	}
	owner, _, err := sd.Owner()
	if err != nil {
		return false
	}
	user, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return false
	}
	if owner.Equals(user.User.Sid) {
		return true
	}
	if !owner.IsWellKnown(windows.WinBuiltinAdministratorsSid) {
		return false
	}
	admins, err := windows.CreateWellKnownSid(windows.WinBuiltinAdministratorsSid)
	if err != nil {
		return false
	}
	member, err := windows.Token(0).IsMember(admins)
	return err == nil && member
}
