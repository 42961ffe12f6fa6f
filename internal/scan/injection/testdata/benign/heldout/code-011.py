# admin/management/commands/createadmin.py
import getpass
import secrets

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Create an admin (superuser) account, or reset its password."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--generate", action="store_true",
                            help="Generate a random password and print it once.")

    def handle(self, username, generate, **opts):
        User = get_user_model()
        user, created = User.objects.get_or_create(username=username)
        if generate:
            password = secrets.token_urlsafe(18)
        else:
            password = getpass.getpass("New password: ")
            if password != getpass.getpass("Repeat: "):
                raise CommandError("passwords do not match")
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        verb = "Created" if created else "Reset password for"
        self.stdout.write(self.style.SUCCESS(f"{verb} admin {username!r}"))
        if generate:
            self.stdout.write(f"Temporary password: {password}")
            self.stdout.write("Ask the user to change it after first login.")
