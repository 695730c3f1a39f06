package web

import (
	"strings"
)

// snippets are the ways to post to a form, ready to copy.
type snippets struct {
	HTML, Fetch, Script string
}

// clientScriptPath is where formd serves its browser helper (the JSON
// API's route).
const clientScriptPath = "/client/script.js"

// snippetsFor writes the HTML form, the fetch call and the script tag for
// a form's access key (html/template escapes them when shown).
func (s *Server) snippetsFor(accessKey string) snippets {
	base := strings.TrimSuffix(s.config.BaseURL, "/")
	return snippets{
		HTML: `<form data-formd action="` + base + `/submit" method="POST">
  <input type="hidden" name="access_key" value="` + accessKey + `">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" required>
  <label for="message">Message</label>
  <textarea id="message" name="message" required></textarea>
  <button type="submit">Send</button>
  <div data-formd-status></div>
</form>`,
		Fetch: `const response = await fetch("` + base + `/submit", {
  method: "POST",
  headers: { "Content-Type": "application/json", "Accept": "application/json" },
  body: JSON.stringify({
    access_key: "` + accessKey + `",
    email: "visitor@example.com",
    message: "Hello!",
  }),
});
const result = await response.json(); // { success: true, … } or { success: false, message, errors }`,
		Script: `<script src="` + base + clientScriptPath + `" defer></script>`,
	}
}
