package main

import (
	"errors"
	"fmt"
	"math"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/caarlos0/env/v11"
)

// testVariablePrefixes are FORMD_* variables read by the test suite and the
// benchmark, not by formd; `make test` exports them, so they are not typos.
var testVariablePrefixes = []string{"FORMD_TEST_", "FORMD_CHAOS_"}

// knownVariables are the names of Config's env tags.
func knownVariables() []string {
	var names []string
	t := reflect.TypeFor[Config]()
	for i := range t.NumField() {
		if name := t.Field(i).Tag.Get("env"); name != "" {
			names = append(names, name)
		}
	}
	return names
}

// variableOf is the environment variable of a field of the struct type t.
func variableOf(t reflect.Type, field string) string {
	if f, ok := t.FieldByName(field); ok {
		return f.Tag.Get("env")
	}
	return field
}

// checkUnknownVariables refuses FORMD_* names formd does not read: a typo
// (FORMD_SMTP_ULR) would otherwise silently leave the default in place.
func checkUnknownVariables(environ []string) error {
	known := knownVariables()
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "FORMD_") || isTestVariable(name) {
			continue
		}
		found := false
		for _, k := range known {
			found = found || k == name
		}
		if !found {
			return fmt.Errorf("%s is not a formd setting; did you mean %s?", name, closest(name, known))
		}
	}
	return nil
}

func isTestVariable(name string) bool {
	for _, p := range testVariablePrefixes {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// closest is the candidate with the smallest edit distance to name.
func closest(name string, candidates []string) string {
	best, bestDist := "", math.MaxInt
	for _, c := range candidates {
		if d := editDistance(name, c); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// explainParseError turns caarlos0/env's error (which names the Go field and
// type of target, the struct parsed) into one line naming the variable. Only numbers and booleans can
// fail to parse, so quoting the value shows no secret.
func explainParseError(err error, target reflect.Type) error {
	var agg env.AggregateError
	if !errors.As(err, &agg) || len(agg.Errors) == 0 {
		return err
	}
	var pe env.ParseError
	if !errors.As(agg.Errors[0], &pe) {
		return agg.Errors[0]
	}
	name := variableOf(target, pe.Name)
	value := os.Getenv(name)
	if pe.Type == reflect.TypeFor[time.Duration]() {
		return fmt.Errorf("%s must be a duration such as 90s, 15m or 168h, not %q", name, value)
	}
	switch pe.Type.Kind() {
	case reflect.Bool:
		return fmt.Errorf("%s must be true or false, not %q", name, value)
	case reflect.Int, reflect.Int64:
		return fmt.Errorf("%s must be a whole number, not %q", name, value)
	case reflect.Float64:
		return fmt.Errorf("%s must be a number, not %q", name, value)
	}
	return fmt.Errorf("%s is invalid: %v", name, pe.Err)
}
