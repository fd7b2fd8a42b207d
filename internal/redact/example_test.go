package redact_test

import (
	"fmt"

	"github.com/webgate-dev/webgate/internal/redact"
)

func ExampleString() {
	fmt.Println(redact.String("https://api.example.com/v1/search?q=go&api_key=5b0e8f2a-1c3d-4e5f-8a9b-0c1d2e3f4a5b"))
	fmt.Println(redact.String("dial postgres://app:hunter2hunter2@db:5432/app: connection refused"))
	fmt.Println(redact.String("golang generics tutorial"))
	// Output:
	// https://api.example.com/v1/search?q=go&api_key=[REDACTED:secret-param]
	// dial postgres://app:[REDACTED:password]@db:5432/app: connection refused
	// golang generics tutorial
}
