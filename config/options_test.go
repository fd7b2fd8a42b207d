package config

import (
	"reflect"
	"testing"
)

// TestLoad_NilOptionsMeansDefaults: a nil *LoadOptions loads as the zero
// LoadOptions (no environment, no home directory): the defaults.
func TestLoad_NilOptionsMeansDefaults(t *testing.T) {
	got, err := Load(nil)
	if err != nil {
		t.Fatal(err)
	}
	want, err := Load(&LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Search, want.Search) || !reflect.DeepEqual(got.Store, want.Store) || !reflect.DeepEqual(got.Sources, want.Sources) {
		t.Fatalf("Load(nil) = %+v, want %+v", got, want)
	}
	if d := Default(); got.Search.Mode != d.Search.Mode || got.Fetch.Order != d.Fetch.Order {
		t.Fatalf("Load(nil): mode %q, order %q; want the defaults %q, %q", got.Search.Mode, got.Fetch.Order, d.Search.Mode, d.Fetch.Order)
	}
}
