package scan_test

import (
	"fmt"

	"github.com/moatdev/moat/internal/scan"
)

func ExampleRedact() {
	fmt.Println(scan.Redact(`psql "postgres://app:Vq8nT2xLp4Rz@db/orders" -c 'select 1'`))
	// Output: psql "postgres://app:[REDACTED:url-password]@db/orders" -c 'select 1'
}
