package domain_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// streamsWithoutAggregate are domain packages whose events are appended but
// never rehydrated into an aggregate, so they have no apply to check.
var streamsWithoutAggregate = []string{"submission", "delivery"}

// TestEveryEventIsApplied reads the domain's source: every type with an
// EventType method must have a case in its package's apply, so a new event
// cannot be recorded and then silently ignored when the aggregate is
// rehydrated (only its version would move).
func TestEveryEventIsApplied(t *testing.T) {
	events := map[string][]string{}  // package dir -> event types
	applied := map[string][]string{} // package dir -> types apply switches on
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		pkg := filepath.Dir(path)
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Recv == nil {
				continue
			}
			switch fn.Name.Name {
			case "EventType":
				if id, ok := fn.Recv.List[0].Type.(*ast.Ident); ok {
					events[pkg] = append(events[pkg], id.Name)
				}
			case "apply":
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if c, ok := n.(*ast.CaseClause); ok {
						for _, e := range c.List {
							if id, ok := e.(*ast.Ident); ok {
								applied[pkg] = append(applied[pkg], id.Name)
							}
						}
					}
					return true
				})
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(events) < 3 {
		t.Fatalf("found events in only %d packages; the source walk is broken", len(events))
	}
	for pkg, types := range events {
		if _, ok := applied[pkg]; !ok {
			if !slices.Contains(streamsWithoutAggregate, filepath.Base(pkg)) {
				t.Errorf("%s declares events %v but has no apply method", pkg, types)
			}
			continue
		}
		for _, e := range types {
			if !slices.Contains(applied[pkg], e) {
				t.Errorf("%s.%s has no case in %s's apply", filepath.Base(pkg), e, pkg)
			}
		}
	}
}
