import bcrypt from "bcryptjs";
import { db } from "./db";

const MIN_PASSWORD_LENGTH = 12;
const BCRYPT_ROUNDS = 12;

export class PasswordPolicyError extends Error {}

export function checkPasswordPolicy(password: string, email: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new PasswordPolicyError(
      `Password must be at least ${MIN_PASSWORD_LENGTH} characters.`,
    );
  }
  if (password.toLowerCase().includes(email.split("@")[0].toLowerCase())) {
    throw new PasswordPolicyError("Password must not contain your username.");
  }
}

export async function setPassword(userId: string, email: string, password: string) {
  checkPasswordPolicy(password, email);
  const hash = await bcrypt.hash(password, BCRYPT_ROUNDS);
  await db.user.update({
    where: { id: userId },
    data: { passwordHash: hash, passwordChangedAt: new Date() },
  });
  // Invalidate every existing session so a stolen cookie stops working.
  await db.session.deleteMany({ where: { userId } });
}

export async function verifyPassword(userId: string, password: string): Promise<boolean> {
  const user = await db.user.findUnique({ where: { id: userId } });
  if (!user?.passwordHash) {
    // Still run a hash so timing does not reveal whether the user exists.
    await bcrypt.compare(password, "$2a$12$invalidinvalidinvalidinvalidinvalidinvalidinv");
    return false;
  }
  return bcrypt.compare(password, user.passwordHash);
}
