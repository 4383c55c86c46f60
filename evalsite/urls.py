from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.urls import include, path

from evalsite import sign_in, views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("accounts/login/", sign_in.LoginView.as_view(), name="login"),
    path("accounts/password_reset/", sign_in.PasswordResetView.as_view(), name="password_reset"),
    path("accounts/", include("django.contrib.auth.urls")),
    path("i18n/", include("django.conf.urls.i18n")),
    path("jobs/", views.job_list, name="job_list"),
    path("jobs/<int:job_id>/", views.job_detail, name="job_detail"),
    path("jobs/<int:job_id>/resume/", views.job_resume, name="job_resume"),
    # Sending dialogues to annotation is annotation's page, at its place among the simulation's.
    path("live/simulate/", include("annotation.from_live.urls")),
    path("live/simulate/", include("liveeval.simulation.urls")),
    path("live/", include("liveeval.urls")),
    path("api/booking/", include("liveeval.api_urls")),
    path("annotation/", include("annotation.urls")),
    path(settings.ADMIN_PATH, admin.site.urls),
]
