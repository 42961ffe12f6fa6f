package scan_test

import (
	"fmt"

	"github.com/moatdev/moat/internal/scan"
)

func ExampleRedact() {
	fmt.Println(scan.Redact(`psql "postgres://app:Vq8nT2xLp4Rz@db/orders" -c 'select 1'`))
	// Output: psql "postgres://app:[REDACTED:url-password]@db/orders" -c 'select 1'
}

func ExampleSecretFindings() {
	content := "[default]\naws_access_key_id = AKIAYBIZ4EA5AZKH5Q5I\n"
	for _, f := range scan.SecretFindings(content, "content") {
		fmt.Println(f.ID, f.Severity, f.Evidence)
	}
	// Output: secret.aws-access-key-id medium aws-access-key-id at content:2:21
}
