// Package eventcodec maps domain events to the shapes the event store keeps
// and back. Domain events are free to change; a stored shape is not: once a
// version of it is written, old rows must keep their meaning forever. So every
// stored shape is its own struct here, named with its schema version, and a
// shape that changes gets a new version plus an upcaster that turns the old
// JSON into the new one when it is read.
package eventcodec

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
)

// Event is any domain event: each knows its versioned type name.
type Event interface{ EventType() string }

// Stored is an event as the store keeps it: the type name, the version of the
// stored shape (the events.schema_version column) and the JSON of that shape.
type Stored struct {
	Type          string
	SchemaVersion int
	Data          json.RawMessage
}

// Upcaster turns the JSON of one schema version of an event into the JSON of
// the next version.
type Upcaster func(json.RawMessage) (json.RawMessage, error)

// entry is how one event type is stored.
type entry struct {
	domainType reflect.Type
	// schema is the version Encode writes; older rows are upcast to it.
	schema int
	// upcasters[n] turns version n into version n+1.
	upcasters map[int]Upcaster
	encode    func(Event) any
	decode    func(json.RawMessage) (Event, error)
}

var (
	byType   = map[string]*entry{}
	byDomain = map[reflect.Type]*entry{}
)

// Register adds an event type: to maps the domain event to its current stored
// shape, from maps it back. upcasters lead from schema version 1 to the
// current one, which is len(upcasters)+1. formd's own events register in this
// package's init functions; tests of the store register their own events.
// Registering one type twice panics.
func Register[D Event, S any](to func(D) S, from func(S) D, upcasters ...Upcaster) {
	var zero D
	name := zero.EventType()
	if _, dup := byType[name]; dup {
		panic("eventcodec: " + name + " registered twice")
	}
	e := &entry{
		domainType: reflect.TypeFor[D](),
		schema:     len(upcasters) + 1,
		upcasters:  map[int]Upcaster{},
		encode:     func(ev Event) any { return to(ev.(D)) },
		decode: func(data json.RawMessage) (Event, error) {
			var s S
			if err := json.Unmarshal(data, &s); err != nil {
				return nil, err
			}
			return from(s), nil
		},
	}
	for i, u := range upcasters {
		e.upcasters[i+1] = u
	}
	byType[name], byDomain[e.domainType] = e, e
}

// Encode maps a domain event to its current stored shape.
func Encode(e Event) (Stored, error) {
	en, ok := byDomain[reflect.TypeOf(e)]
	if !ok {
		return Stored{}, fmt.Errorf("eventcodec: no stored shape for %T (%s)", e, e.EventType())
	}
	data, err := json.Marshal(en.encode(e))
	if err != nil {
		return Stored{}, fmt.Errorf("eventcodec: encode %s: %w", e.EventType(), err)
	}
	return Stored{Type: e.EventType(), SchemaVersion: en.schema, Data: data}, nil
}

// Decode maps a stored event to its domain event, upcasting older schema
// versions first. Version 0 means "not recorded" (an envelope from before
// the version was carried) and reads as version 1.
func Decode(s Stored) (Event, error) {
	en, ok := byType[s.Type]
	if !ok {
		return nil, fmt.Errorf("eventcodec: unknown event type %q", s.Type)
	}
	v, data := max(s.SchemaVersion, 1), s.Data
	if v > en.schema {
		return nil, fmt.Errorf("eventcodec: %s has schema version %d, newer than this build knows (%d)", s.Type, v, en.schema)
	}
	for ; v < en.schema; v++ {
		var err error
		if data, err = en.upcasters[v](data); err != nil {
			return nil, fmt.Errorf("eventcodec: upcast %s from version %d: %w", s.Type, v, err)
		}
	}
	e, err := en.decode(data)
	if err != nil {
		return nil, fmt.Errorf("eventcodec: decode %s: %w", s.Type, err)
	}
	return e, nil
}

// Types lists every event type the codec knows, sorted.
func Types() []string {
	out := make([]string, 0, len(byType))
	for t := range byType {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}
