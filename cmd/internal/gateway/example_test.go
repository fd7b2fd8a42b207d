package gateway_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/webgate-dev/webgate/cmd/internal/gateway"
	"github.com/webgate-dev/webgate/cmd/internal/webtools"
	"github.com/webgate-dev/webgate/store/storeurl"
)

// A gateway over an in-memory store: a token is created, and a request
// without it is refused.
func Example() {
	ctx := context.Background()
	st, _ := storeurl.Open(ctx, "memory:", nil)
	defer st.Close()
	tokens := &gateway.Tokens{Store: st}
	_, secret, _ := tokens.Create(ctx, gateway.NewToken{Owner: "ana", Team: "core"})
	srv := httptest.NewServer(gateway.New(gateway.Options{
		Tools:   &webtools.Tools{},
		Tokens:  tokens,
		Limiter: &gateway.Limiter{Store: st, Token: gateway.Limits{RequestsPerDay: 100}},
		Audit:   &gateway.Audit{Store: st},
	}))
	defer srv.Close()
	resp, _ := srv.Client().Post(srv.URL+"/v1/search", "application/json", strings.NewReader(`{"query":"go"}`))
	fmt.Println(resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	fmt.Println(strings.HasPrefix(secret, gateway.TokenPrefix))
	// Output:
	// 401 Bearer realm="webgate"
	// true
}
