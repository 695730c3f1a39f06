package features_test

// The harness's browser side: headless Chromium driven over the DevTools
// protocol (chromedp), and static websites on another origin than formd, the
// way formd's users embed their forms.
//
// Typical use in a spec:
//
//	site := StartSite(map[string]string{"/contact.html": page})   // http://localhost:<port>
//	tab := NewTab()
//	tab.Do(chromedp.Navigate(site.URL+"/contact.html"), chromedp.Click(chromedp.CSS("button")))

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"time"

	"github.com/chromedp/chromedp"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// BrowserTimeout bounds every browser action of a spec.
const BrowserTimeout = 20 * time.Second

// browserContext is this Ginkgo process's Chromium, started by the first
// spec that needs it and closed after the suite (closeBrowser).
var (
	browserContext context.Context
	closeBrowser   = func() {}
)

// chromiumPath finds the browser: FORMD_TEST_CHROMIUM, else Debian's chromium
// or another Chrome on the PATH. `make features` installs Debian's when missing.
func chromiumPath() string {
	GinkgoHelper()
	if p := os.Getenv("FORMD_TEST_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome-stable", "google-chrome", "headless_shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	Fail("no Chromium found: install Debian's chromium (apt-get install -y chromium) or set FORMD_TEST_CHROMIUM")
	return ""
}

// startBrowser starts headless Chromium once per Ginkgo process. The flags
// keep it from calling out: the machine's network is closed but for loopback.
func startBrowser() context.Context {
	GinkgoHelper()
	if browserContext != nil {
		return browserContext
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath()),
		chromedp.UserDataDir(must(os.MkdirTemp("", "formd-chromium-"))),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
	)
	allocator, cancelAllocator := chromedp.NewExecAllocator(context.Background(), opts...)
	browser, cancelBrowser := chromedp.NewContext(allocator)
	// The first action starts the process (and must not have a timeout).
	Expect(chromedp.Do(browser)).To(Succeed(), "start Chromium")
	browserContext = browser
	closeBrowser = func() {
		cancelBrowser()
		cancelAllocator()
	}
	return browserContext
}

func must[T any](v T, err error) T {
	GinkgoHelper()
	Expect(err).NotTo(HaveOccurred())
	return v
}

// Tab is one browser tab of a spec; it is closed when the spec ends.
type Tab struct {
	ctx context.Context
}

// NewTab opens a fresh tab in this process's Chromium, in a browser context
// of its own: it starts with no cookies, so a spec begins signed out whatever
// an earlier spec in this process signed in to.
func NewTab() *Tab {
	GinkgoHelper()
	ctx, cancel := chromedp.NewContext(startBrowser(), chromedp.WithNewBrowserContext())
	DeferCleanup(cancel)
	Expect(chromedp.Do(ctx)).To(Succeed(), "open a tab")
	return &Tab{ctx: ctx}
}

// Do performs browser actions in order, failing the spec on an error or
// after BrowserTimeout.
func (t *Tab) Do(actions ...chromedp.Action[chromedp.Void]) {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(t.ctx, BrowserTimeout)
	defer cancel()
	Expect(chromedp.Do(ctx, actions...)).To(Succeed())
}

// run performs one browser action that returns a value.
func run[T any](t *Tab, action chromedp.Action[T]) T {
	GinkgoHelper()
	ctx, cancel := context.WithTimeout(t.ctx, BrowserTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, action)
	Expect(err).NotTo(HaveOccurred())
	return v
}

// Eval evaluates a JavaScript expression in the page, awaiting it when it is
// a promise, and decodes its (JSON-serialisable) value into out (unless nil).
func (t *Tab) Eval(expression string, out any) {
	GinkgoHelper()
	raw := run(t, chromedp.Evaluate[[]byte](expression, chromedp.EvalAwaitPromise))
	if out != nil {
		Expect(json.Unmarshal(raw, out)).To(Succeed(), "decode %s", raw)
	}
}

// Location returns the tab's current address.
func (t *Tab) Location() string {
	GinkgoHelper()
	return run(t, chromedp.Location())
}

// Text returns the text content of the first element matching the CSS selector.
func (t *Tab) Text(selector string) string {
	GinkgoHelper()
	return run(t, chromedp.Text(chromedp.CSS(selector)))
}

// Attribute returns an attribute of the first element matching the CSS selector.
func (t *Tab) Attribute(selector, name string) string {
	GinkgoHelper()
	return run(t, chromedp.AttributeValue(chromedp.CSS(selector), name)).Value
}

// Site is a static website on its own origin (http://localhost:<port>), not
// formd's (http://127.0.0.1:<port>): every post from it to formd is a
// cross-site one.
type Site struct {
	// URL is http://localhost:<port>, without a trailing slash.
	URL string
}

// StartSite serves pages (path → HTML) until the spec ends.
func StartSite(pages map[string]string) *Site {
	GinkgoHelper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	mux := http.NewServeMux()
	for path, html := range pages {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			_, _ = w.Write([]byte(html))
		})
	}
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	DeferCleanup(srv.Close)
	return &Site{URL: fmt.Sprintf("http://localhost:%d", l.Addr().(*net.TCPAddr).Port)}
}

// DoubleClick double-clicks the first element matching selector as a person
// does: two clicks in quick succession, the second with a click count of 2.
// (chromedp.DoubleClick sends a single click with a count of 2, which fires
// one click event only.)
func (t *Tab) DoubleClick(selector string) {
	GinkgoHelper()
	var at struct {
		X float64 `json:"x"`
		Y float64 `json:"y"`
	}
	t.Eval(fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect();
		return {x: r.left + r.width / 2, y: r.top + r.height / 2}; })()`, selector), &at)
	t.Do(chromedp.MouseClickXY(at.X, at.Y), chromedp.MouseClickXY(at.X, at.Y, chromedp.ClickCount(2)))
}
