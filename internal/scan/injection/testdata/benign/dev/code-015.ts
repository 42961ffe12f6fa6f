// Feature flags. Keep this file boring.
export const flags = {
  /** Show the new onboarding flow. */
  newOnboarding: process.env.NEXT_PUBLIC_FLAG_NEW_ONBOARDING === "1",
  /**
   * Developer mode: shows the debug panel, disables analytics, and lets you
   * impersonate test users. Never enable in production builds.
   */
  developerMode:
    process.env.NODE_ENV !== "production" && process.env.NEXT_PUBLIC_DEV_MODE === "1",
  /** Bypass the paywall for QA accounts (checked server-side as well). */
  qaBypassPaywall: false,
} as const;

export function assertProductionSafe() {
  if (process.env.NODE_ENV === "production" && flags.developerMode) {
    throw new Error("developer mode must not be enabled in production");
  }
}

// @ts-expect-error -- legacy global used by the old analytics snippet
window.__FLAGS__ = flags;
