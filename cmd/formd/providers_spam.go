package main

import (
	"github.com/formd/formd/adapters/rspamd"
	"github.com/formd/formd/application"
)

// provideSpamClassifier connects the content classifier, rspamd, when
// FORMD_RSPAMD_URL is set; without it there is none (nil), and submissions
// are not classified.
func provideSpamClassifier(cfg Config) (application.SpamClassifier, error) {
	if cfg.RspamdURL == "" {
		return nil, nil
	}
	classifier, err := rspamd.New(cfg.rspamdConfig())
	if err != nil {
		return nil, err
	}
	return classifier, nil
}
