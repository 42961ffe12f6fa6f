package netdest

import "testing"

func TestPaymentEndpoint(t *testing.T) {
	for _, c := range []struct {
		url  string
		want bool
	}{
		{"https://api.stripe.com/v1/transfers", true},
		{"https://sk_live_x:@api.stripe.com/v1/payouts", true},
		{"api.stripe.com/v1/refunds?expand=charge", true},
		{"https://api.stripe.com/v1/payment_intents/pi_123/confirm", true},
		{"https://api.stripe.com/v1/charges/ch_1/capture", true},
		{"https://api-m.paypal.com/v1/payments/payouts", true},
		{"https://api-m.sandbox.paypal.com/v2/checkout/orders/5O1/capture", true},
		{"https://connect.squareup.com/v2/refunds", true},
		{"https://api.wise.com/v1/transfers", true},
		{"https://checkout-test.adyen.com/v71/payments", true},
		{"https://api.stripe.com/v1/customers", false},
		{"https://api.stripe.com/v1/charges/ch_1", false},
		{"https://api.stripe.com/v1/balance", false},
		{"https://api.example.com/v1/transfers", false},
		{"https://docs.stripe.com/api/transfers", false},
	} {
		if got := PaymentEndpoint(c.url); got != c.want {
			t.Errorf("PaymentEndpoint(%q) = %v, want %v", c.url, got, c.want)
		}
	}
}
