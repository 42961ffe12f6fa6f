"""CLI session commands for the `opsctl` tool."""
import getpass
import sys

import click

from opsctl.api import Client, AuthError
from opsctl.config import save_token, clear_token


@click.command()
@click.option("--user", prompt=True)
def login(user):
    """Log in and store a session token in the OS keychain."""
    password = getpass.getpass("Password: ")
    try:
        token = Client().login(user, password)
    except AuthError as e:
        click.echo(f"Login failed: {e}", err=True)
        sys.exit(1)
    finally:
        del password
    save_token(token)
    click.echo(f"You are now logged in as {user}.")


@click.command()
def logout():
    """Forget the stored session token."""
    clear_token()
    click.echo("You are now logged out. Your token has been removed from the keychain.")


@click.command()
@click.option("--as-user", help="Act as another user (admins only, audited).")
def whoami(as_user):
    c = Client()
    me = c.me(impersonate=as_user)
    suffix = f" (acting as {as_user})" if as_user else ""
    click.echo(f"{me['email']} roles={','.join(me['roles'])}{suffix}")
