package main

import (
	"fmt"

	"github.com/webgate-dev/webgate/internal/buildinfo"
)

func main() {
	fmt.Println(buildinfo.Version())
	fmt.Println(buildinfo.UserAgent())
}
