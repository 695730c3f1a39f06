package main

// The container image has no /usr/share/zoneinfo: embedding Go's copy of the
// time-zone database (about 450 KB) lets time.LoadLocation work there and on
// any machine without one.
import _ "time/tzdata"
