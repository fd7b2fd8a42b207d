package gateway

import (
	"strings"
	"testing"
)

// Counting a call in series that exist allocates nothing; the labels are
// rendered, escaped and ordered when the metrics are written.
func TestMetrics_CountWithoutAllocatingAndWrite(t *testing.T) {
	m := newMetrics()
	count := func() {
		m.add("webgate_gateway_requests_total", "Requests.", labels("route", "/v1/search", "code", statusCode(200)), 1)
		m.add("webgate_gateway_token_calls_total", "Calls.", labels("token", "abc"), 1)
		m.add("webgate_gateway_credits_total", "Credits.", series{}, 2)
		m.observe("webgate_gateway_request_seconds", "Latency.", labels("route", "/v1/search"), 0.003)
	}
	count()
	if n := testing.AllocsPerRun(100, count); n != 0 {
		t.Errorf("counting a call allocates %v times, want 0", n)
	}
	m.add("webgate_gateway_limits_hit_total", "Limits.", labels("limit", `a "b"\`+"\n"), 1)
	var b strings.Builder
	m.write(&b)
	for _, want := range []string{
		"# TYPE webgate_gateway_requests_total counter\n",
		`webgate_gateway_requests_total{route="/v1/search",code="200"} 102` + "\n",
		`webgate_gateway_token_calls_total{token="abc"} 102` + "\n",
		"webgate_gateway_credits_total 204\n",
		`webgate_gateway_limits_hit_total{limit="a \"b\"\\\n"} 1` + "\n",
		`webgate_gateway_request_seconds_bucket{route="/v1/search",le="0.005"} 102` + "\n",
		`webgate_gateway_request_seconds_bucket{route="/v1/search",le="+Inf"} 102` + "\n",
		`webgate_gateway_request_seconds_count{route="/v1/search"} 102` + "\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("metrics lack %q:\n%s", want, b.String())
		}
	}
}
