"""The admin's user pages, with the site's username rule (`evalsite.usernames`).

Django's own user admin accepts any Unicode username, so a superuser could make "оtto" (with a
Cyrillic о) beside "otto", or rename someone to it. Both forms refuse what the site's other
ways of making accounts refuse.
"""

from __future__ import annotations

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.contrib.auth.models import User

from evalsite import usernames


class UserCreationWithoutLookAlikes(AdminUserCreationForm):
    def clean_username(self) -> str:
        username: str = super().clean_username()
        usernames.validate_new_username(username)
        return username


class UserChangeWithoutLookAlikes(UserChangeForm[User]):
    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"]
        if "username" in self.changed_data:
            usernames.validate_new_username(username, exclude_pk=self.instance.pk)
        return username


class SiteUserAdmin(UserAdmin[User]):
    add_form = UserCreationWithoutLookAlikes
    form = UserChangeWithoutLookAlikes


admin.site.unregister(User)
admin.site.register(User, SiteUserAdmin)
