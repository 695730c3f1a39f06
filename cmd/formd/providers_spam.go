package main

import (
	"github.com/formd/formd/adapters/akismet"
	"github.com/formd/formd/adapters/rspamd"
	"github.com/formd/formd/application"
)

// provideSpamClassifier connects the content classifier: rspamd when
// FORMD_RSPAMD_URL is set, Akismet when FORMD_AKISMET_KEY is (validation
// refuses both). Without either there is none (nil), and submissions are
// not classified.
func provideSpamClassifier(cfg Config) (application.SpamClassifier, error) {
	switch {
	case cfg.RspamdURL != "":
		classifier, err := rspamd.New(cfg.rspamdConfig())
		if err != nil {
			return nil, err
		}
		return classifier, nil
	case cfg.AkismetKey != "":
		classifier, err := akismet.New(cfg.akismetConfig())
		if err != nil {
			return nil, err
		}
		return classifier, nil
	}
	return nil, nil
}
