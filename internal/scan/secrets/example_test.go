package secrets_test

import (
	"fmt"

	"github.com/moatdev/moat/internal/scan/secrets"
)

func ExampleFindings() {
	content := "[default]\naws_access_key_id = AKIAYBIZ4EA5AZKH5Q5I\n"
	for _, f := range secrets.Findings(content, "content") {
		fmt.Println(f.ID, f.Severity, f.Evidence)
	}
	// Output: secret.aws-access-key-id medium aws-access-key-id at content:2:21
}
