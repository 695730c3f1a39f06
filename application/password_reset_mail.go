package application

import (
	"fmt"
	"time"
)

// passwordResetMail is the subject and text of a password reset link's mail.
// It says what following the link does to someone who did not ask: nothing
// changes unless they set a password on the page it opens.
func passwordResetMail(link string, expiresAt time.Time) (subject, text string) {
	return "Reset your formd password", fmt.Sprintf("Someone asked to reset the password of the formd account of this address.\n\n"+
		"Open this link to set a new password. Every session of the account ends when you do:\n\n%s\n\n"+
		"The link expires at %s and works once.\nIf you did not ask for it, ignore this email: nothing changes.\n",
		link, expiresAt.UTC().Format("2006-01-02 15:04 MST"))
}
