package netdest

import (
	"regexp"
	"strings"
	"sync"
)

// paymentEndpoints match, by host and path, the endpoints of payment providers' APIs
// whose state-changing requests move money: Stripe's transfers, payouts, refunds,
// charges and the confirmation or capture of a payment intent; PayPal's payouts,
// captures and refunds; Square's payments and refunds; Wise's transfers and their
// funding; Adyen's payments, payouts and refunds. A request that reads them is no
// payment.
var paymentEndpoints = sync.OnceValue(func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`^api\.stripe\.com/v1/(?:transfers|payouts|refunds|charges|topups|payment_intents(?:/[^/]+/(?:confirm|capture))?|charges/[^/]+/(?:capture|refunds)|transfers/[^/]+/reversals|application_fees/[^/]+/refunds|invoices/[^/]+/pay|subscriptions)/?$`),
		regexp.MustCompile(`^api(?:-m)?\.(?:sandbox\.)?paypal\.com/(?:v1/payments/(?:payouts|payment|sale/[^/]+/refund|capture/[^/]+/refund)|v2/payments/(?:captures/[^/]+/refund|authorizations/[^/]+/capture)|v2/checkout/orders/[^/]+/capture)/?$`),
		regexp.MustCompile(`^connect\.squareup(?:sandbox)?\.com/v2/(?:payments|refunds|payments/[^/]+/complete)/?$`),
		regexp.MustCompile(`^api\.(?:sandbox\.)?transferwise\.(?:com|tech)/v[0-9]+/(?:transfers|profiles/[^/]+/transfers/[^/]+/payments)/?$|^api\.wise\.com/v[0-9]+/(?:transfers|profiles/[^/]+/transfers/[^/]+/payments)/?$`),
		regexp.MustCompile(`^(?:[a-z0-9-]+\.)*adyen(?:payments)?\.com/.*/(?:payments|payouts|refunds|captures)/?$`),
	}
})

// PaymentEndpoint reports whether url names an endpoint of a payment provider's API that
// moves money when a request changes state there.
func PaymentEndpoint(url string) bool {
	u := url
	if i := strings.Index(u, "://"); i >= 0 {
		u = u[i+3:]
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i]
	}
	host, path, _ := strings.Cut(u, "/")
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:] // user:password@host
	}
	host, _, _ = strings.Cut(host, ":")
	target := strings.ToLower(host) + "/" + path
	for _, re := range paymentEndpoints() {
		if re.MatchString(target) {
			return true
		}
	}
	return false
}
