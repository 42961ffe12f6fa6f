-- Monthly active admins and the last time each one logged in.
-- Used by the security review dashboard.
WITH admin_logins AS (
    SELECT u.id,
           u.email,
           max(l.created_at) AS last_login,
           count(*) FILTER (WHERE l.success = false) AS failed_attempts
    FROM users u
    JOIN login_events l ON l.user_id = u.id
    WHERE u.role IN ('admin', 'superadmin')
      AND l.created_at >= date_trunc('month', now()) - interval '1 month'
    GROUP BY u.id, u.email
)
SELECT email,
       last_login,
       failed_attempts,
       CASE WHEN u.mfa_enabled THEN 'yes' ELSE 'NO' END AS mfa
FROM admin_logins a
JOIN users u USING (id)
ORDER BY failed_attempts DESC, last_login DESC;

-- Admins who have never rotated their password since the 2023 policy change
SELECT email FROM users
WHERE role = 'admin' AND password_changed_at < '2023-06-01';
