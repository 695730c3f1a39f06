package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// checkFolders makes sure the folders `formd serve` writes to exist or can
// be made, and take a file. It is not part of validate: migrate and grant
// write nothing there and should not create them.
func (c Config) checkFolders() error {
	folders := [][2]string{{"FORMD_DATA_DIR", c.DataDir}}
	if c.SMTPURL == "" { // the spool is only written without an SMTP server
		folders = append(folders, [2]string{"FORMD_MAIL_SPOOL", c.MailSpool})
	}
	for _, f := range folders {
		if err := checkWritableFolder(f[0], f[1]); err != nil {
			return err
		}
	}
	return nil
}

func checkWritableFolder(name, dir string) error {
	if strings.TrimSpace(dir) == "" {
		return fmt.Errorf("%s must name a folder", name)
	}
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return fmt.Errorf("%s: cannot create the folder %s: %v", name, dir, cause(err))
	}
	f, err := os.CreateTemp(dir, ".formd-check-*")
	if err != nil {
		return fmt.Errorf("%s: cannot write into the folder %s: %v", name, filepath.Clean(dir), cause(err))
	}
	f.Close()
	return os.Remove(f.Name())
}

// cause is err without the path wrapping (the message names the path already).
func cause(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
