package spamdata

import "testing"

func TestDisposableDomainMatchesTheListAndItsSubdomains(t *testing.T) {
	for host, want := range map[string]string{
		"mailinator.com":             "mailinator.com",
		"yopmail.com":                "yopmail.com",
		"guerrillamail.com":          "guerrillamail.com",
		"inbox.mailinator.com":       "mailinator.com",
		"example.com":                "",
		"com":                        "",
		"":                           "",
		"mailinator.com.example.org": "",
	} {
		got, ok := DisposableDomain(host)
		if got != want || ok != (want != "") {
			t.Errorf("%q: got %q, %v; want %q", host, got, ok, want)
		}
	}
	if n := len(disposable()); n < 1000 {
		t.Errorf("the shipped list holds %d domains, want the community list's thousands", n)
	}
	if _, ok := disposable()["# source: https://github.com/disposable-email-domains/disposable-email-domains"]; ok {
		t.Error("header comments are not domains")
	}
}
