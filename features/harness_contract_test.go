package features_test

// The harness's contract check: every request the suite sends to formd and
// every answer it gets are validated against the document formd serves at
// GET /openapi.json (kin-openapi's openapi3filter), so the document cannot
// drift from the code.
//
//   - A request on a route the document lacks fails the spec, unless the spec
//     sends it on purpose with OffContract("why").
//   - Every answer must be documented for its operation: status code, content
//     type and body schema (error bodies included).
//   - Specs send invalid requests on purpose (malformed JSON, missing fields):
//     a request the document refuses must be refused by formd too (4xx).

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// offContractHeader marks a request a spec sends outside the contract on
// purpose; the transport removes it before the request leaves.
const offContractHeader = "X-Formd-Test-Off-Contract"

// OffContract marks a request that deliberately uses a route or method the
// contract does not list (to see formd's 404 or 405, say); reason says why.
// Its answer is not validated.
func OffContract(reason string) http.Header {
	return Header(offContractHeader, reason)
}

var (
	contractOnce   sync.Once
	contractRouter routers.Router
	contractErr    error
)

func init() {
	// Content types formd answers with besides JSON: their bodies are text.
	for _, ct := range []string{"text/html", "text/markdown", "text/javascript", "application/x-ndjson"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
	openapi3filter.RegisterBodyDecoder("application/linkset+json", openapi3filter.JSONBodyDecoder)
}

// loadContract reads GET /openapi.json once per process, with a client that
// does not validate (the document is what validates).
func loadContract(base string, rt http.RoundTripper) (routers.Router, error) {
	contractOnce.Do(func() {
		req, err := http.NewRequest(http.MethodGet, base+"/openapi.json", nil)
		if err != nil {
			contractErr = err
			return
		}
		resp, err := rt.RoundTrip(req)
		if err != nil {
			contractErr = err
			return
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			contractErr = err
			return
		}
		doc, err := openapi3.NewLoader().LoadFromData(data)
		if err == nil {
			err = doc.Validate(context.Background())
		}
		if err == nil {
			contractRouter, err = gorillamux.NewRouter(doc)
		}
		contractErr = err
	})
	return contractRouter, contractErr
}

// contractTransport validates each exchange with formd against the contract.
type contractTransport struct {
	base *http.Transport
}

// newContractTransport is the transport of every harness client.
func newContractTransport() contractTransport {
	return contractTransport{base: &http.Transport{Proxy: nil, MaxIdleConnsPerHost: 16}}
}

// CloseIdleConnections lets http.Client.CloseIdleConnections reach the pool.
func (t contractTransport) CloseIdleConnections() { t.base.CloseIdleConnections() }

// RoundTrip sends the request and returns an error (failing the spec's
// request) when the exchange breaks the contract.
func (t contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	offContract := req.Header.Get(offContractHeader)
	if offContract != "" {
		req = req.Clone(req.Context())
		req.Header.Del(offContractHeader)
	}
	var reqBody []byte
	if req.Body != nil {
		var err error
		if reqBody, err = io.ReadAll(req.Body); err != nil {
			return nil, err
		}
		_ = req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(reqBody))
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil || offContract != "" {
		return resp, err
	}
	respBody, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	if err != nil {
		return resp, err
	}
	if err := t.check(req, reqBody, resp, respBody); err != nil {
		return nil, fmt.Errorf("contract (/openapi.json): %s %s → %d: %w\nanswer: %.600s", req.Method, req.URL.Path, resp.StatusCode, err, respBody)
	}
	return resp, nil
}

func (t contractTransport) check(req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) error {
	router, err := loadContract(req.URL.Scheme+"://"+req.URL.Host, t.base)
	if err != nil {
		return fmt.Errorf("load the contract: %w", err)
	}
	// The router matches on the request without its host (servers: "/").
	probe := req.Clone(context.Background())
	probe.Body = io.NopCloser(bytes.NewReader(reqBody))
	route, params, err := router.FindRoute(probe)
	if err != nil {
		return fmt.Errorf("the route is not in the contract (%v); a spec that means it sends OffContract(reason)", err)
	}
	opts := &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		MultiError:            true,
	}
	input := &openapi3filter.RequestValidationInput{Request: probe, PathParams: params, Route: route, Options: opts}
	requestErr := openapi3filter.ValidateRequest(context.Background(), input)

	input.Request = req.Clone(context.Background()) // ValidateRequest consumed the probe's body
	input.Request.Body = io.NopCloser(bytes.NewReader(reqBody))
	respInput := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: input,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Body:                   io.NopCloser(bytes.NewReader(respBody)),
		Options:                opts,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), respInput); err != nil {
		return fmt.Errorf("the answer breaks the contract: %s", describe(err))
	}
	if requestErr != nil && resp.StatusCode < 400 {
		return fmt.Errorf("the contract refuses this request (%s), but formd accepted it", describe(requestErr))
	}
	return nil
}

// describe flattens kin-openapi's (multi-)errors into one readable line.
func describe(err error) string {
	var multi openapi3.MultiError
	if errors.As(err, &multi) {
		parts := make([]string, 0, len(multi))
		for _, e := range multi {
			parts = append(parts, describe(e))
		}
		return strings.Join(parts, "; ")
	}
	return strings.ReplaceAll(err.Error(), "\n", " ")
}

// expectContractLoaded fails early, with a clear message, when the served
// document cannot be loaded at all.
func expectContractLoaded(f *Formd) {
	GinkgoHelper()
	_, err := loadContract(f.URL, http.DefaultTransport)
	Expect(err).NotTo(HaveOccurred(), "GET /openapi.json must load as a valid OpenAPI document")
}

// ContractProxy puts a contract-checking reverse proxy in front of f for a
// browser, whose traffic the harness client never sees, and returns its
// address (http://127.0.0.1:<port>). It forwards everything unchanged (CORS
// headers included); an exchange that breaks the contract is answered 502
// and fails the spec when it ends.
func ContractProxy(f *Formd) string {
	GinkgoHelper()
	target, err := url.Parse(f.URL)
	Expect(err).NotTo(HaveOccurred())
	var (
		mu       sync.Mutex
		breaches []string
	)
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.Transport = newContractTransport()
	proxy.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		mu.Lock()
		breaches = append(breaches, err.Error())
		mu.Unlock()
		http.Error(w, err.Error(), http.StatusBadGateway)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	srv := &http.Server{Handler: proxy, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(l) }()
	DeferCleanup(func() {
		_ = srv.Close()
		mu.Lock()
		defer mu.Unlock()
		Expect(breaches).To(BeEmpty(), "the browser's exchanges with formd must follow /openapi.json")
	})
	return "http://" + l.Addr().String()
}
