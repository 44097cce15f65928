package trust

import (
	"io/fs"
	"os"

	"golang.org/x/sys/windows"
)

// ownerOfFile reads the owner from the open file's security descriptor.
func ownerOfFile(f *os.File, _ fs.FileInfo) owner {
	sd, err := windows.GetSecurityInfo(windows.Handle(f.Fd()), windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	return ownerFromSD(sd, err)
}

// ownerOfPath reads the owner from the security descriptor of path.
func ownerOfPath(path string, _ fs.FileInfo) owner {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.OWNER_SECURITY_INFORMATION)
	return ownerFromSD(sd, err)
}

func ownerFromSD(sd *windows.SECURITY_DESCRIPTOR, err error) owner {
	if err != nil {
		return owner{who: "an unknown owner (" + err.Error() + ")"}
	}
	sid, _, err := sd.Owner()
	if err != nil || sid == nil {
		return owner{who: "an unknown owner"}
	}
	return owner{mine: sidIsMe(sid), root: sid.IsWellKnown(windows.WinLocalSystemSid), who: sid.String()}
}

// sidIsMe decides ownership as git for Windows does: the owner is the user,
// or the Administrators group when the user is an administrator (files an
// elevated process creates belong to that group).
func sidIsMe(owner *windows.SID) bool {
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
